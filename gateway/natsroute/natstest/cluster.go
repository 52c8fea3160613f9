// Package natstest runs real nats-server nodes (github.com/nats-io/nats-server/v2,
// embedded) on loopback for the fleet's tests and the bench: a JetStream
// cluster whose nodes can be killed and restarted on their own ports, and a
// TCP proxy that cuts a gateway instance off from NATS and heals it. No
// nats-server needs to be installed.
package natstest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Cluster is n nats-server nodes with JetStream, routed to each other (one
// node: no cluster) on 127.0.0.1.
type Cluster struct {
	mu    sync.Mutex
	nodes []*node
}

type node struct {
	opts *server.Options
	srv  *server.Server // nil while killed
}

// Start runs n nodes keeping their JetStream state under dir and waits
// until JetStream answers (a meta leader is elected).
func Start(ctx context.Context, dir string, n int) (*Cluster, error) {
	if n < 1 {
		return nil, errors.New("natstest: at least one node")
	}
	ports, err := freePorts(2 * n)
	if err != nil {
		return nil, err
	}
	var routes []string
	for i := range n {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[n+i]))
	}
	c := &Cluster{}
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1),
			Host:       "127.0.0.1",
			Port:       ports[i],
			JetStream:  true,
			StoreDir:   filepath.Join(dir, fmt.Sprintf("n%d", i+1)),
			NoLog:      true,
			NoSigs:     true,
			// As docs/gateway.md configures a fleet: room for the gateway's
			// largest message (--max-message, 32 MiB).
			MaxPayload: 32 << 20,
			// Quick detection of a killed peer (the defaults are minutes).
			PingInterval: 500 * time.Millisecond,
			MaxPingsOut:  3,
		}
		if n > 1 {
			o.Cluster = server.ClusterOpts{Name: "agenthub-test", Host: "127.0.0.1", Port: ports[n+i]}
			o.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		c.nodes = append(c.nodes, &node{opts: o})
	}
	for i := range c.nodes {
		if err := c.Restart(i); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.WaitJetStream(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// URL is node i's client URL.
func (c *Cluster) URL(i int) string {
	return fmt.Sprintf("nats://127.0.0.1:%d", c.nodes[i].opts.Port)
}

// URLs is every node's client URL, comma-separated (as --nats takes them).
func (c *Cluster) URLs() string {
	urls := make([]string, len(c.nodes))
	for i := range c.nodes {
		urls[i] = c.URL(i)
	}
	return strings.Join(urls, ",")
}

// Kill shuts node i down at once (its clients see their connection drop).
func (c *Cluster) Kill(i int) {
	c.mu.Lock()
	s := c.nodes[i].srv
	c.nodes[i].srv = nil
	c.mu.Unlock()
	if s != nil {
		s.Shutdown()
		s.WaitForShutdown()
	}
}

// Restart starts node i again on its ports with its JetStream state (or
// for the first time).
func (c *Cluster) Restart(i int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	nd := c.nodes[i]
	if nd.srv != nil {
		return nil
	}
	o := *nd.opts
	s, err := server.NewServer(&o)
	if err != nil {
		return fmt.Errorf("natstest: node %d: %w", i+1, err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return fmt.Errorf("natstest: node %d not ready", i+1)
	}
	nd.srv = s
	return nil
}

// WaitJetStream waits until JetStream answers an account info request
// through every running node.
func (c *Cluster) WaitJetStream(ctx context.Context) error {
	for i, nd := range c.nodes {
		c.mu.Lock()
		up := nd.srv != nil
		c.mu.Unlock()
		if !up {
			continue
		}
		nc, err := nats.Connect(c.URL(i), nats.NoReconnect())
		if err != nil {
			return fmt.Errorf("natstest: connect node %d: %w", i+1, err)
		}
		js, err := jetstream.New(nc)
		if err != nil {
			nc.Close()
			return err
		}
		for {
			actx, cancel := context.WithTimeout(ctx, time.Second)
			_, err = js.AccountInfo(actx)
			cancel()
			if err == nil {
				break
			}
			select {
			case <-ctx.Done():
				nc.Close()
				return fmt.Errorf("natstest: JetStream not ready on node %d: %w", i+1, err)
			case <-time.After(50 * time.Millisecond):
			}
		}
		nc.Close()
	}
	return nil
}

// Close shuts every node down.
func (c *Cluster) Close() {
	for i := range c.nodes {
		c.Kill(i)
	}
}

// freePorts reserves n distinct loopback ports and releases them for the
// nodes (which keep them across restarts).
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("natstest: %w", err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
