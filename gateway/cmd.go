package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// Command is the sub-command name: `agenthub gateway [flags]`.
const Command = "gateway"

// DefaultListen is where `agenthub gateway` listens without --listen:
// loopback, for a reverse proxy in front (docs/gateway.md).
const DefaultListen = "127.0.0.1:7800"

// Config is `agenthub gateway`'s flags.
type Config struct {
	Listen          string
	TLSCert, TLSKey string
	MaxMessageBytes int
	// WebSocketOnly refuses HTTP long-polling (Options.WebSocketOnly).
	WebSocketOnly bool
	// NATS joins a fleet of gateways (package natsroute): the cluster's
	// URLs, comma-separated; empty: this process alone. NATSCreds is a
	// credentials file, NATSNKey an nkey seed file, NATSCA a CA bundle for tls:// URLs, NATSCert and
	// NATSKey a client certificate; NATSReplicas the registrations
	// bucket's replicas (0: up to 3).
	NATS, NATSCreds, NATSNKey, NATSCA, NATSCert, NATSKey string
	NATSReplicas                                         int
}

// ParseFlags reads the sub-command's flags (args without "gateway").
// --help writes the usage to stdout and returns flag.ErrHelp.
func ParseFlags(args []string, stdout, stderr io.Writer) (Config, error) {
	cfg := Config{Listen: DefaultListen, MaxMessageBytes: DefaultMaxMessageBytes}
	fs := flag.NewFlagSet("agenthub gateway", flag.ContinueOnError)
	var usage strings.Builder
	fs.SetOutput(&usage)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "`ADDR` to listen on (host:port; :443 for every interface)")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate `FILE` (PEM, chain included): serve https/wss")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key `FILE` (PEM)")
	fs.IntVar(&cfg.MaxMessageBytes, "max-message", cfg.MaxMessageBytes, "largest message in `BYTES` a device may send")
	fs.BoolVar(&cfg.WebSocketOnly, "websocket-only", false, "refuse HTTP long-polling (a load balancer then needs no sticky sessions)")
	fs.StringVar(&cfg.NATS, "nats", "", "join a fleet of gateways through NATS at `URLS` (comma-separated nats:// or tls://)")
	fs.StringVar(&cfg.NATSCreds, "nats-creds", "", "NATS credentials `FILE` (JWT and nkey seed) of the gateways' user")
	fs.StringVar(&cfg.NATSNKey, "nats-nkey", "", "NATS nkey seed `FILE` of the gateways' user (a server-configured account)")
	fs.StringVar(&cfg.NATSCA, "nats-ca", "", "CA bundle `FILE` that signed the NATS servers' certificates")
	fs.StringVar(&cfg.NATSCert, "nats-cert", "", "client certificate `FILE` for NATS (with --nats-key)")
	fs.StringVar(&cfg.NATSKey, "nats-key", "", "client key `FILE` for NATS")
	fs.IntVar(&cfg.NATSReplicas, "nats-replicas", 0, "replicas of the fleet's registrations bucket (0: as many NATS nodes as known, at most 3)")
	fs.Usage = func() {
		fmt.Fprintf(&usage, "Usage: agenthub gateway [flags]\n\nA router for the seeds' device protocol (Socket.io at /ws): hubs started with\n--gateway URL and clients (the UI served here, the seed SDK) reach each other\nthrough it. It keeps no message and trusts no device: hubs verify their devices.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, _ = io.WriteString(stdout, usage.String())
		return cfg, err
	case err != nil:
		_, _ = io.WriteString(stderr, usage.String())
		return cfg, err
	case fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q (flags only; see --help)", fs.Arg(0))
	case (cfg.TLSCert == "") != (cfg.TLSKey == ""):
		err = errors.New("--tls-cert and --tls-key go together")
	case cfg.MaxMessageBytes < 1<<20:
		err = fmt.Errorf("--max-message %d: at least 1 MiB", cfg.MaxMessageBytes)
	case (cfg.NATSCert == "") != (cfg.NATSKey == ""):
		err = errors.New("--nats-cert and --nats-key go together")
	case cfg.NATSCreds != "" && cfg.NATSNKey != "":
		err = errors.New("--nats-creds or --nats-nkey, not both")
	case cfg.NATS == "" && (cfg.NATSCreds != "" || cfg.NATSNKey != "" || cfg.NATSCA != "" || cfg.NATSCert != "" || cfg.NATSReplicas != 0):
		err = errors.New("the --nats-* flags need --nats")
	}
	if err == nil {
		_, _, err = net.SplitHostPort(cfg.Listen)
		if err != nil {
			err = fmt.Errorf("--listen %q: %w", cfg.Listen, err)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub gateway:", err)
	}
	return cfg, err
}

// Run serves a gateway until ctx ends: it prints the address it listens on
// (the URL a hub's --gateway takes) to stdout, logs to log. It serves this
// process alone: natsroute.Run serves one with --nats.
func Run(ctx context.Context, cfg Config, assets fs.FS, stdout io.Writer, log *slog.Logger) error {
	return Serve(ctx, cfg, Options{Assets: assets}, stdout, log)
}

// Serve is Run with opts (a fleet's Registry and Router): cfg's message
// bound, transports and logger fill opts.
func Serve(ctx context.Context, cfg Config, opts Options, stdout io.Writer, log *slog.Logger) error {
	var tlsConf *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("gateway: TLS: %w", err)
		}
		tlsConf = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	scheme := "http"
	if tlsConf != nil {
		ln = tls.NewListener(ln, tlsConf)
		scheme = "https"
	}
	opts.MaxMessageBytes, opts.WebSocketOnly, opts.Logger = cfg.MaxMessageBytes, cfg.WebSocketOnly, log
	gw := New(opts)
	srv := &http.Server{Handler: gw.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	url := scheme + "://" + ln.Addr().String()
	if _, err := fmt.Fprintf(stdout, "gateway: %s\n", url); err != nil {
		return err
	}
	log.Info("gateway listening", "url", url, "socket_io_path", "/ws")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		gw.Close()
		return fmt.Errorf("gateway: %w", err)
	case <-ctx.Done():
	}
	log.Info("gateway stopping")
	gw.Close()
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		_ = srv.Close()
	}
	return nil
}
