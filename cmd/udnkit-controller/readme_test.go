package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/udnkit/udnkit/controller"
	"github.com/udnkit/udnkit/internal/kubetest"
	"github.com/udnkit/udnkit/netconf"
)

// readmeCommands returns the two lines of the README's "Running the
// controller" block.
func readmeCommands(t *testing.T) (ctl, apply string) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### Running the controller")
	if i < 0 {
		t.Fatal("README has no \"Running the controller\" section")
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	end := strings.Index(s[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no sh block in the README's \"Running the controller\"")
	}
	lines := strings.Split(strings.TrimSpace(s[start+6:start+6+end]), "\n")
	if len(lines) != 2 {
		t.Fatalf("the README's controller block has %d commands, want 2: %q", len(lines), lines)
	}
	return lines[0], lines[1]
}

// TestReadme runs the README's two commands against a real API server:
// the controller (in this process, with the first line's flags; $HOME is
// a directory whose .kube/config reaches the server), then kubectl apply
// with the second line. Both UDNs get their NAD and their NetworkCreated
// and NetworkReady conditions.
func TestReadme(t *testing.T) {
	first, second := readmeCommands(t)
	const prefix = "go run ./cmd/udnkit-controller "
	if !strings.HasPrefix(first, prefix) || !strings.HasSuffix(first, " &") {
		t.Fatalf("the first command %q is not %q...\" &\"", first, prefix)
	}
	if !strings.HasPrefix(second, "kubectl ") {
		t.Fatalf("the second command %q is not kubectl's", second)
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl: %v (Debian package kubernetes-client)", err)
		}
		t.Skipf("kubectl: %v: install it (Debian package kubernetes-client)", err)
	}
	s := kubetest.Start(t)
	home := t.TempDir()
	writeKubeconfig(t, s, filepath.Join(home, ".kube", "config"))

	// The cluster's node, with what an ovnkube-node writes on it.
	scheme, err := controller.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(s.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1", Annotations: map[string]string{
		controller.AnnotationChassisID:     "chassis-1",
		controller.AnnotationPrimaryIfAddr: `{"ipv4":"172.18.0.2/16"}`,
		controller.AnnotationGatewayConfig: `{"default":{"next-hops":["172.18.0.1"]}}`,
	}}}); err != nil {
		t.Fatal(err)
	}

	args := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(first, prefix), " &"))
	for i, a := range args {
		args[i] = os.Expand(strings.Trim(a, `"`), func(k string) string {
			if k == "HOME" {
				return home
			}
			return os.Getenv(k)
		})
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(runCtx, args) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("udnkit-controller: %v", err)
		}
	})

	// kubectl needs the CRDs the controller installs first.
	deadline := time.Now().Add(2 * time.Minute)
	var out []byte
	for {
		cmd := exec.Command(kubectl, strings.Fields(strings.TrimPrefix(second, "kubectl "))...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG=")
		if out, err = cmd.CombinedOutput(); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("udnkit-controller ended: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v\n%s", second, err, out)
		}
		time.Sleep(time.Second)
	}
	t.Logf("%s\n%s", second, out)

	for _, ns := range []string{"blue", "red"} {
		key := client.ObjectKey{Namespace: ns, Name: "net"}
		var last error
		for deadline := time.Now().Add(2 * time.Minute); ; {
			last = ready(ctx, c, key)
			if last == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if last != nil {
			t.Errorf("UserDefinedNetwork %s: %v", key, last)
		}
	}
}

// ready says whether the UDN's NAD exists and its NetworkCreated and
// NetworkReady are True.
func ready(ctx context.Context, c client.Client, key client.ObjectKey) error {
	if err := c.Get(ctx, key, &nadv1.NetworkAttachmentDefinition{}); err != nil {
		return fmt.Errorf("NAD: %w", err)
	}
	var u netconf.UserDefinedNetwork
	if err := c.Get(ctx, key, &u); err != nil {
		return err
	}
	for _, typ := range []string{netconf.ConditionNetworkCreated, netconf.ConditionNetworkReady} {
		if !meta.IsStatusConditionTrue(u.Status.Conditions, typ) {
			return fmt.Errorf("%s not True: %v", typ, u.Status.Conditions)
		}
	}
	return nil
}

// writeKubeconfig writes a kubeconfig that reaches s.
func writeKubeconfig(t *testing.T, s *kubetest.Server, path string) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: s.Config.Host, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: s.Config.BearerToken}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin"}
	cfg.CurrentContext = "test"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}
