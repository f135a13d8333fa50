package kube_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/udnkit/udnkit/topology/pods/kube"
)

func ExamplePodFrom() {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "web-0", UID: "9f1c"},
		Spec: corev1.PodSpec{NodeName: "node-a"}}
	got, err := kube.PodFrom(p)
	fmt.Println(got.Namespace, got.Name, got.Node, err)
	// Output: tenant-a web-0 node-a <nil>
}
