// Command etcd is the etcd server, built from the published go.etcd.io/etcd/server/v3 module.
// etcd's own main lives in its root module, which uses local replace directives and so cannot be
// built as a dependency; calling etcdmain.Main is exactly what that main does.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
