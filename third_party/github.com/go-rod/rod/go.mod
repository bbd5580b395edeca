module github.com/go-rod/rod

go 1.21

require (
	github.com/ysmood/fetchup v0.2.3
	github.com/ysmood/goob v0.4.0
	github.com/ysmood/got v0.40.0
	github.com/ysmood/gotrace v0.6.0
	github.com/ysmood/gson v0.7.3
	github.com/ysmood/leakless v0.9.0
)

require github.com/ysmood/gop v0.2.0 // indirect
