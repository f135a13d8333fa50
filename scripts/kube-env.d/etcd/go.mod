// etcd for udnkit's tests, built by scripts/kube-env prepare (go.sum is made there, outside the repository).
module udnkit.test/etcd

go 1.26

require go.etcd.io/etcd/server/v3 v3.7.0
