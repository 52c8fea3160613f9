package main

import (
	"fmt"
	"image/color"
	"path/filepath"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var lineColors = []color.Color{
	color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}, // push floor
	color.RGBA{R: 0x33, G: 0x66, B: 0xcc, A: 0xff}, // relay floor
	color.RGBA{R: 0xdd, G: 0x44, B: 0x11, A: 0xff}, // Agent Hub
	color.RGBA{R: 0x22, G: 0x99, B: 0x55, A: 0xff}, // durable relay floor (latency only)
}

// charts writes the PNGs the report embeds.
func (rep *report) charts(dir string) error {
	for _, n := range []int{1, 10} {
		if err := rep.latencyChart(filepath.Join(dir, fmt.Sprintf("bench-latency-%d.png", n)), n); err != nil {
			return err
		}
	}
	if err := rep.sizeChart(filepath.Join(dir, "bench-throughput.png"), "Unpaced burst, 1 client: throughput", "deltas/s",
		func(r run) float64 { return r.rate() }); err != nil {
		return err
	}
	return rep.sizeChart(filepath.Join(dir, "bench-cpu.png"), "Unpaced burst, 1 client: CPU per 1k deltas", "ms of CPU per 1,000 deltas",
		func(r run) float64 { return float64(r.cpuPer1k()) / float64(time.Millisecond) })
}

// latencyChart is the distribution (CDF) of per-delta latency of the paced
// run, log x axis.
func (rep *report) latencyChart(path string, clients int) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Latency at %d deltas/s, %d client(s): fraction of deltas within x", rep.plan.paced.rate, clients)
	p.X.Label.Text = "latency (ms, log scale)"
	p.Y.Label.Text = "fraction of deltas"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = false
	p.Legend.Left = false
	for i, name := range append(rep.names[:], rep.durable) {
		r := rep.get(name, rep.plan.paced, clients)
		if len(r.latencies) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, 200)
		step := max(1, len(r.latencies)/200)
		for j := 0; j < len(r.latencies); j += step {
			pts = append(pts, plotter.XY{X: max(0.001, float64(r.latencies[j])/1e6), Y: float64(j+1) / float64(len(r.latencies))})
		}
		last := r.latencies[len(r.latencies)-1]
		pts = append(pts, plotter.XY{X: max(0.001, float64(last)/1e6), Y: 1})
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = lineColors[i]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(name, l)
	}
	return p.Save(8*vg.Inch, 4.5*vg.Inch, path)
}

// sizeChart plots one figure of the one-client bursts against message length.
func (rep *report) sizeChart(path, title, ylabel string, y func(run) float64) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "deltas in the message (log scale)"
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min = 0
	for i, name := range rep.names {
		var pts plotter.XYs
		for _, n := range rep.plan.bursts {
			pts = append(pts, plotter.XY{X: float64(n), Y: y(rep.get(name, burst{n: n}, 1))})
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color, s.Color = lineColors[i], lineColors[i]
		l.Width = vg.Points(1.5)
		s.Shape = draw.CircleGlyph{}
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
