package ovnnb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/udnkit/udnkit/backend/ovnnb"
	"github.com/udnkit/udnkit/internal/nbdb"
)

func TestDialOlderSchemaEmbedded(t *testing.T) {
	s := nbdb.Schema()
	s.Version = "7.0.0"
	e, err := ovnnb.StartEmbeddedSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	_, err = ovnnb.Dial(context.Background(), ovnnb.Config{Endpoints: []string{e.Endpoint()}, NoReconnect: true})
	if !errors.Is(err, ovnnb.ErrSchema) || !strings.Contains(err.Error(), "7.0.0") || !strings.Contains(err.Error(), ovnnb.MinSchemaVersion) {
		t.Fatalf("err = %v, want ErrSchema naming both versions", err)
	}
}

func TestDialConfigErrors(t *testing.T) {
	for _, cfg := range []ovnnb.Config{{}, {Endpoints: []string{"ssl:127.0.0.1:6641"}}, {Endpoints: []string{"udp:1.2.3.4:1"}}, {Endpoints: []string{"tcp:"}}} {
		if _, err := ovnnb.Dial(context.Background(), cfg); !errors.Is(err, ovnnb.ErrConnect) {
			t.Errorf("%v: err = %v, want ErrConnect", cfg.Endpoints, err)
		}
	}
}
