package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	nadv1 "github.com/k8snetworkplumbingwg/network-attachment-definition-client/pkg/apis/k8s.cni.cncf.io/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/udnkit/udnkit"
	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/connect"
	"github.com/udnkit/udnkit/netconf"
	egressipkube "github.com/udnkit/udnkit/topology/egressip/kube"
	egressqoskube "github.com/udnkit/udnkit/topology/egressqos/kube"
)

// Config is a controller's settings.
type Config struct {
	// Zone is the interconnect zone whose Northbound database NB is: the
	// name of the node this controller programs (each node is a zone of
	// its own).
	Zone string
	// NB is the zone's Northbound database; nil writes no NB (the
	// controller still writes NADs, annotations and statuses).
	NB *ovnnb.Client
	// Cluster is the cluster's settings (its Nodes field is ignored: the
	// Nodes come from the API server).
	Cluster udnkit.Config
	// LeaderElection makes the replicas elect one leader with a Lease
	// called LeaseName in LeaseNamespace: only the leader reconciles (and
	// so writes anything). Without it this controller writes at once.
	LeaderElection bool
	// LeaseNamespace defaults to "kube-system", LeaseName to
	// "udnkit-controller".
	LeaseNamespace, LeaseName string
	// LeaseDuration, RenewDeadline and RetryPeriod default to
	// controller-runtime's (15 s, 10 s, 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Now stamps status conditions; time.Now when nil.
	Now func() time.Time
	// Logger defaults to a discarding one.
	Logger logr.Logger

	// hook, when set, is called by the reconciler at the named points
	// ("nads": NADs written, nothing else yet) with the pass's context;
	// tests stop it there.
	hook func(ctx context.Context, point string)
}

// Controller drives a udnkit.Cluster from the API server's Nodes,
// Namespaces, UserDefinedNetworks, ClusterUserDefinedNetworks,
// NetworkAttachmentDefinitions and ClusterNetworkConnects, and writes
// back what the cluster stores: NADs, allocation annotations, statuses,
// and the zone's Northbound rows.
type Controller struct {
	mgr manager.Manager
	r   *reconciler
}

// requestKey is the one request every watched object maps to: the
// controller reconciles the whole cluster at once (level-triggered),
// which batches bursts of events into one pass.
var requestKey = reconcile.Request{NamespacedName: types.NamespacedName{Name: "cluster"}}

// New returns a Controller on the API server of restCfg. Run starts it.
// A restCfg without QPS gets no client-side rate limit (client-go's
// default of 5 requests a second would take minutes to write a thousand
// NADs); the API server's priority and fairness still apply, as with
// controller-runtime's own config loader.
func New(restCfg *rest.Config, cfg Config) (*Controller, error) {
	if restCfg.QPS == 0 && restCfg.RateLimiter == nil {
		restCfg = rest.CopyConfig(restCfg)
		restCfg.QPS = -1
	}
	if cfg.Zone == "" {
		return nil, errors.New("controller: Config.Zone: empty; name the node whose zone this controller programs")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger.GetSink() == nil {
		cfg.Logger = logr.Discard()
	}
	if cfg.LeaseNamespace == "" {
		cfg.LeaseNamespace = "kube-system"
	}
	if cfg.LeaseName == "" {
		cfg.LeaseName = "udnkit-controller"
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	opts := manager.Options{
		Scheme:                        scheme,
		Logger:                        cfg.Logger,
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		LeaderElection:                cfg.LeaderElection,
		LeaderElectionID:              cfg.LeaseName,
		LeaderElectionNamespace:       cfg.LeaseNamespace,
		LeaderElectionReleaseOnCancel: true,
		Controller:                    config.Controller{SkipNameValidation: ptr.To(true)},
	}
	if cfg.LeaseDuration > 0 {
		opts.LeaseDuration = &cfg.LeaseDuration
	}
	if cfg.RenewDeadline > 0 {
		opts.RenewDeadline = &cfg.RenewDeadline
	}
	if cfg.RetryPeriod > 0 {
		opts.RetryPeriod = &cfg.RetryPeriod
	}
	mgr, err := ctrl.NewManager(restCfg, opts)
	if err != nil {
		return nil, fmt.Errorf("controller: manager: %w", err)
	}
	cluster, err := udnkit.New(cfg.Cluster)
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	r := newReconciler(cfg, mgr.GetClient(), cluster)
	all := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{requestKey}
	})
	b := ctrl.NewControllerManagedBy(mgr).Named("udnkit")
	for _, o := range []client.Object{&corev1.Node{}, &corev1.Namespace{}, &netconf.UserDefinedNetwork{},
		&netconf.ClusterUserDefinedNetwork{}, &nadv1.NetworkAttachmentDefinition{}, &connect.ClusterNetworkConnect{},
		&corev1.Pod{}, &corev1.Service{}, &discoveryv1.EndpointSlice{}, &networkingv1.NetworkPolicy{},
		&egressipkube.EgressIP{}, &egressqoskube.EgressQoS{}} {
		b = b.Watches(o, all)
	}
	if err := b.Complete(r); err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	return &Controller{mgr: mgr, r: r}, nil
}

// Run runs the controller until ctx ends. With leader election it
// reconciles only while it holds the Lease.
func (c *Controller) Run(ctx context.Context) error { return c.mgr.Start(ctx) }

// Elected is closed once this replica leads (at once without leader
// election).
func (c *Controller) Elected() <-chan struct{} { return c.mgr.Elected() }

// Cluster returns the facade the controller feeds (for inspection; a
// caller must not change it).
func (c *Controller) Cluster() *udnkit.Cluster { return c.r.cluster }

// now returns the condition time stamp.
func (r *reconciler) now() metav1.Time { return metav1.NewTime(r.cfg.Now().Truncate(time.Second)) }
