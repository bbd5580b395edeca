module github.com/ysmood/got

go 1.21

require github.com/ysmood/gop v0.2.0
