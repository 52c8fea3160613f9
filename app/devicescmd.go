package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"agenthub/app/settings"
	"agenthub/ipc/devices"
	"agenthub/ipc/gatewaylink"
)

// DevicesCommand is the sub-command name: `agenthub devices …`.
const DevicesCommand = "devices"

const devicesUsage = `Usage:
  agenthub devices [list]                 the hub's id and the devices it trusts
  agenthub devices pair [--read-only]     a pairing token (15 minutes) and the link that uses it
  agenthub devices revoke DEVICE_ID       forget a device (it must pair again)
  agenthub devices rights DEVICE_ID full|read-only
  agenthub devices pending                the devices waiting to be allowed (the running hub)
  agenthub devices allow DEVICE_ID [--read-only]
  agenthub devices deny DEVICE_ID

A device pairs by verifying with the token through the gateway; the hub's
user then allows it in the window, the dashboard page or with allow. list,
pair, revoke and rights work whether or not the hub runs (the trust file is
DATA_DIR/devices.json); pending, allow and deny ask the running hub, through
its dashboard (DATA_DIR/dashboard.json).

Flags (after the command):
`

// RunDevices runs `agenthub devices` with args (after "devices") and
// returns the exit code: 0, 1 for a failure, 2 for bad usage.
func RunDevices(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("agenthub devices", flag.ContinueOnError)
	var usage strings.Builder
	fs.SetOutput(&usage)
	dataDir := fs.String("data-dir", "", "the hub's data `DIR` (default: "+describeDefaultDataDir()+")")
	gateway := fs.String("gateway", "", "the gateway `URL`, for the pairing link (default: settings' gateway_url)")
	readOnly := fs.Bool("read-only", false, "pair, allow: the device may watch, not act")
	fs.Usage = func() { usage.WriteString(devicesUsage); fs.PrintDefaults() }
	// Flags may come before, between and after the command's words.
	var rest []string
	err := fs.Parse(args)
	for err == nil && fs.NArg() > 0 {
		if cmd == "" {
			cmd = fs.Arg(0)
		} else {
			rest = append(rest, fs.Arg(0))
		}
		err = fs.Parse(fs.Args()[1:])
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = io.WriteString(stdout, usage.String())
			return 0
		}
		_, _ = io.WriteString(stderr, usage.String())
		return 2
	}
	if cmd == "" {
		cmd = "list"
	}
	dir, err := ResolveDataDir(*dataDir, goos, getenv)
	if err == nil {
		err = EnsureDataDir(dir)
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub devices:", err)
		return 1
	}
	store := devices.Open(dir)
	switch {
	case cmd == "list" && len(rest) == 0:
		err = listDevices(store, stdout)
	case cmd == "pair" && len(rest) == 0:
		rights := devices.Full
		if *readOnly {
			rights = devices.ReadOnly
		}
		url := *gateway
		if url == "" {
			if st, lerr := settings.Load(dir); lerr == nil {
				url = st.GatewayURL
			}
		}
		err = pairDevice(store, rights, url, stdout)
	case cmd == "revoke" && len(rest) == 1:
		var ok bool
		if ok, err = store.Revoke(rest[0]); err == nil {
			if ok {
				fmt.Fprintf(stdout, "revoked %s (a running hub ends its session within seconds)\n", rest[0])
			} else {
				err = fmt.Errorf("no device %q is trusted", rest[0])
			}
		}
	case cmd == "pending" && len(rest) == 0:
		err = listPending(dir, stdout)
	case (cmd == "allow" || cmd == "deny") && len(rest) == 1:
		var rights devices.Rights
		if *readOnly {
			rights = devices.ReadOnly
		}
		err = answerPending(dir, rest[0], cmd == "allow", rights, stdout)
	case cmd == "rights" && len(rest) == 2:
		var r devices.Rights
		if r, err = devices.ParseRights(rest[1]); err == nil {
			if err = store.SetRights(rest[0], r); err == nil {
				fmt.Fprintf(stdout, "%s is now %s\n", rest[0], r)
			}
		}
	default:
		fmt.Fprint(stderr, devicesUsage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "agenthub devices:", err)
		return 1
	}
	return 0
}

func listDevices(store *devices.Store, out io.Writer) error {
	hubID, err := store.HubID()
	if err != nil {
		return err
	}
	ds, err := store.Devices()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "hub id: %s\n", hubID)
	if len(ds) == 0 {
		fmt.Fprintln(out, "no trusted devices (agenthub devices pair)")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tRIGHTS\tADDED\tAGENT")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.ID, d.Rights, d.AddedAt.Local().Format(time.DateTime), d.Meta["userAgent"])
	}
	return tw.Flush()
}

func pairDevice(store *devices.Store, rights devices.Rights, gatewayURL string, out io.Writer) error {
	hubID, err := store.HubID()
	if err != nil {
		return err
	}
	tok, exp, err := store.Pair(rights)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "hub id: %s\ntoken:  %s\nrights: %s\nvalid until %s\n", hubID, tok, rights, exp.Local().Format(time.DateTime))
	if gatewayURL != "" {
		if u, err := gatewaylink.ValidateURL(gatewayURL, true); err == nil {
			fmt.Fprintf(out, "open:   %s\n", gatewaylink.PairLink(u, hubID, tok))
		}
	}
	fmt.Fprintln(out, "The device verifies with this token; allow it in the hub's window when asked.")
	return nil
}
