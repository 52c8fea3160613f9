package natsroute

import (
	"context"
	"io"
	"io/fs"
	"log/slog"

	"agenthub/gateway"
)

// Run is `agenthub gateway`: with cfg.NATS it joins the fleet there and
// serves as one of its instances (gateway.Serve with the Fleet as Registry
// and Router) until ctx ends, then closes the gateway (its devices
// reconnect to the other instances) and leaves the fleet; without, it is
// gateway.Run.
func Run(ctx context.Context, cfg gateway.Config, assets fs.FS, stdout io.Writer, log *slog.Logger) error {
	if cfg.NATS == "" {
		return gateway.Run(ctx, cfg, assets, stdout, log)
	}
	f, err := Connect(ctx, Options{URL: cfg.NATS, CredsFile: cfg.NATSCreds, NKeyFile: cfg.NATSNKey, CAFile: cfg.NATSCA, CertFile: cfg.NATSCert,
		KeyFile: cfg.NATSKey, Replicas: cfg.NATSReplicas, Logger: log})
	if err != nil {
		return err
	}
	defer f.Close()
	if max := f.MaxPayload(); int64(cfg.MaxMessageBytes) > max {
		log.Warn("gateway fleet: NATS carries less than a device may send: larger messages between instances get send_error (raise max_payload or lower --max-message)",
			"max_payload", max, "max_message", cfg.MaxMessageBytes)
	}
	return gateway.Serve(ctx, cfg, gateway.Options{Assets: assets, Registry: f, Router: f}, stdout, log)
}
