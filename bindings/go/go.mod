module github.com/toolregistry-rs/toolregistry-rs/bindings/go

go 1.24
