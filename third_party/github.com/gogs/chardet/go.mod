module github.com/gogs/chardet
