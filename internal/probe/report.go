package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Report is a zone's verification: the probes' results and the matrix
// they make.
type Report struct {
	Zone     string
	Protocol string
	Port     int32
	Networks []string
	Results  []Result
	Skipped  []string
}

// NewReport gathers the results of p's probes.
func NewReport(p *Plan, results []Result) Report {
	return Report{Zone: p.Zone, Protocol: p.Protocol.String(), Port: p.Port, Networks: p.Networks, Results: results, Skipped: p.Skipped}
}

// Surprises returns the number of results that are surprises.
func (r Report) Surprises() int {
	n := 0
	for _, res := range r.Results {
		if res.Surprise {
			n++
		}
	}
	return n
}

// Cell is the matrix's entry for a pair of networks: the outcome every
// probe between them came to ("mixed" when they differ, "-" with no
// probe), with "!" when one of them is a surprise.
func (r Report) Cell(from, to string) string {
	cell, surprise := "", false
	for _, res := range r.Results {
		if res.From.Network != from || res.To.Network != to {
			continue
		}
		surprise = surprise || res.Surprise
		switch o := res.Outcome.String(); cell {
		case "":
			cell = o
		case o:
		default:
			cell = "mixed"
		}
	}
	if cell == "" {
		return "-"
	}
	if surprise {
		cell += "!"
	}
	return cell
}

// WriteText writes the matrix (rows: from, columns: to), every probe with
// its intent, outcome and where it ended, and each surprise with the rows
// that may explain it.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "zone %s: %d probe(s), %s/%d, %d surprise(s)\n", r.Zone, len(r.Results), r.Protocol, r.Port, r.Surprises())
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n", s)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append([]string{"FROM \\ TO"}, r.Networks...), "\t"))
	for _, from := range r.Networks {
		row := []string{from}
		for _, to := range r.Networks {
			row = append(row, r.Cell(from, to))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\n")
	tw = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FROM\tTO\tINTENT\tOUTCOME\tWHERE")
	for _, res := range r.Results {
		mark := ""
		if res.Surprise {
			mark = "!"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\t%s\n", res.From, res.To, intentWord(res.Intent), res.Outcome, mark, res.Where)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, res := range r.Results {
		if !res.Surprise {
			continue
		}
		fmt.Fprintf(&b, "\nsurprise: %s -> %s: want %s (%s), got %s at %s\n", res.From, res.To, intentWord(res.Intent), res.Intent.Why, res.Outcome, res.Where)
		for _, row := range res.Rows {
			fmt.Fprintf(&b, "  row: %s\n", row)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func intentWord(in Intent) string {
	if in.Delivered {
		return "delivered"
	}
	return "not delivered"
}

type jsonEndpoint struct {
	Network string `json:"network"`
	Node    string `json:"node"`
	Pod     string `json:"pod,omitempty"`
	Port    string `json:"port"`
	IP      string `json:"ip"`
}

type jsonResult struct {
	From     jsonEndpoint `json:"from"`
	To       jsonEndpoint `json:"to"`
	Intent   string       `json:"intent"`
	Why      string       `json:"why"`
	Outcome  string       `json:"outcome"`
	Where    string       `json:"where"`
	Surprise bool         `json:"surprise"`
	Rows     []string     `json:"rows,omitempty"`
}

type jsonReport struct {
	Zone      string                       `json:"zone"`
	Protocol  string                       `json:"protocol"`
	Port      int32                        `json:"port"`
	Surprises int                          `json:"surprises"`
	Skipped   []string                     `json:"skipped,omitempty"`
	Matrix    map[string]map[string]string `json:"matrix"`
	Probes    []jsonResult                 `json:"probes"`
}

// WriteJSON writes the report as one indented JSON object: the matrix by
// source and destination network, and every probe.
func (r Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Zone: r.Zone, Protocol: r.Protocol, Port: r.Port, Surprises: r.Surprises(), Skipped: r.Skipped,
		Matrix: map[string]map[string]string{}, Probes: []jsonResult{}}
	for _, from := range r.Networks {
		out.Matrix[from] = map[string]string{}
		for _, to := range r.Networks {
			out.Matrix[from][to] = r.Cell(from, to)
		}
	}
	ep := func(e Endpoint) jsonEndpoint {
		return jsonEndpoint{Network: e.Network, Node: e.Node, Pod: e.Pod, Port: e.Port, IP: e.IP.String()}
	}
	for _, res := range r.Results {
		out.Probes = append(out.Probes, jsonResult{From: ep(res.From), To: ep(res.To), Intent: intentWord(res.Intent), Why: res.Intent.Why,
			Outcome: res.Outcome.String(), Where: res.Where, Surprise: res.Surprise, Rows: res.Rows})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
