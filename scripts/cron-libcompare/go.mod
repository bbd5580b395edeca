module github.com/openclaw-go/openclaw/scripts/cron-libcompare

go 1.26.0

require (
	github.com/adhocore/gronx v1.20.4
	github.com/robfig/cron/v3 v3.0.1
)
