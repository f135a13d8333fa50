package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/crds"
	"github.com/udnkit/udnkit/internal/kubetest"
	"github.com/udnkit/udnkit/netconf"
)

// waitTimeout bounds every wait for the controller: generous, since the
// test machine may be busy building.
const waitTimeout = 3 * time.Minute

// env is an API server with the CRDs installed and a typed client.
type env struct {
	server *kubetest.Server
	cfg    *rest.Config
	c      client.Client
}

func startEnv(t testing.TB) *env {
	t.Helper()
	s := kubetest.Start(t)
	all, err := crds.All()
	if err != nil {
		t.Fatal(err)
	}
	kubetest.InstallCRDs(t, s.Config, append(all, kubetest.NADCRD())...)
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(s.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return &env{server: s, cfg: s.Config, c: c}
}

// embeddedNB starts an in-memory NB for the test.
func embeddedNB(t testing.TB) *ovnnb.Client {
	t.Helper()
	e, err := ovnnb.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	nb, err := ovnnb.Dial(context.Background(), e.Config())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nb.Close)
	return nb
}

// running is a controller run by a test.
type running struct {
	c      *Controller
	cancel context.CancelFunc
	done   chan error
}

// run starts a controller; stop (or the test's end) stops it.
func run(t testing.TB, e *env, cfg Config) *running {
	t.Helper()
	c, err := New(e.cfg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{c: c, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- c.Run(ctx) }()
	t.Cleanup(r.stop)
	return r
}

// stop stops the controller and waits for it.
func (r *running) stop() {
	r.cancel()
	<-r.done
	r.done <- nil // a second stop returns at once
}

// node returns a ready Node with the annotations NodeFromObject reads.
func node(name string, i int) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
		AnnotationChassisID:     fmt.Sprintf("chassis-%d", i),
		AnnotationPrimaryIfAddr: fmt.Sprintf(`{"ipv4":"172.18.0.%d/16"}`, 10+i),
		AnnotationGatewayConfig: `{"default":{"next-hops":["172.18.0.1"]}}`,
	}}}
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func udn(ns, name string, spec netconf.UserDefinedNetworkSpec) *netconf.UserDefinedNetwork {
	return &netconf.UserDefinedNetwork{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
}

func create(t testing.TB, e *env, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := e.c.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, client.ObjectKeyFromObject(o), err)
		}
	}
}

// eventually polls f until it returns nil or waitTimeout passes.
func eventually(t testing.TB, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	var err error
	for time.Now().Before(deadline) {
		if err = f(); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not after %v: %v", what, waitTimeout, err)
}

// nadAnnotations returns the allocation annotations of every NAD, by key.
func nadAnnotations(t testing.TB, e *env) map[string]string {
	t.Helper()
	var l nadv1.NetworkAttachmentDefinitionList
	if err := e.c.List(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range l.Items {
		var b strings.Builder
		for _, k := range []string{"k8s.ovn.org/network-name", "k8s.ovn.org/network-id", "k8s.ovn.org/tunnel-keys"} {
			fmt.Fprintf(&b, "%s=%s ", k, n.Annotations[k])
		}
		out[n.Namespace+"/"+n.Name] = b.String()
	}
	return out
}

// nodeAnnotations returns the node-id and node-subnets of every Node.
func nodeAnnotations(t testing.TB, e *env) map[string]string {
	t.Helper()
	var l corev1.NodeList
	if err := e.c.List(context.Background(), &l); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range l.Items {
		out[n.Name] = n.Annotations["k8s.ovn.org/node-id"] + " " + n.Annotations["k8s.ovn.org/node-subnets"]
	}
	return out
}

// condition returns the condition of type typ, or an error saying what
// there is.
func condition(conds []metav1.Condition, typ string, want metav1.ConditionStatus) error {
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		return fmt.Errorf("no %s condition in %v", typ, conds)
	}
	if c.Status != want {
		return fmt.Errorf("%s is %s (%s: %s), want %s", typ, c.Status, c.Reason, c.Message, want)
	}
	return nil
}

func udnReady(e *env, ns, name string) error {
	var u netconf.UserDefinedNetwork
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &u); err != nil {
		return err
	}
	return errors.Join(condition(u.Status.Conditions, netconf.ConditionNetworkCreated, metav1.ConditionTrue),
		condition(u.Status.Conditions, netconf.ConditionNetworkReady, metav1.ConditionTrue))
}

func cncAccepted(e *env, name string) error {
	var c connect.ClusterNetworkConnect
	if err := e.c.Get(context.Background(), client.ObjectKey{Name: name}, &c); err != nil {
		return err
	}
	if err := condition(c.Status.Conditions, connect.ConditionAccepted, metav1.ConditionTrue); err != nil {
		return err
	}
	if c.Status.Status != connect.Success {
		return fmt.Errorf("status %q, want Success: %v", c.Status.Status, c.Status.Conditions)
	}
	return nil
}

// TestMain sends controller-runtime's package logger nowhere (it warns
// when none is set).
func TestMain(m *testing.M) {
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
