package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// terminal says what the command may draw: colour on stderr (validate's
// errors, notes) and progress on stderr (apply). Both are off unless
// stderr is a terminal; colour is also off with NO_COLOR set (any value,
// no-color.org) or TERM=dumb. A pipe or file gets plain text.
type terminal struct {
	color, progress bool
}

// detectTerminal decides for the file f (stderr) and the environment.
func detectTerminal(f *os.File, getenv func(string) string) terminal {
	if !isTerminal(f) || getenv("TERM") == "dumb" {
		return terminal{}
	}
	return terminal{color: getenv("NO_COLOR") == "", progress: true}
}

// SGR sequences.
const (
	sgrReset  = "\x1b[0m"
	sgrRed    = "\x1b[1;31m"
	sgrYellow = "\x1b[33m"
	sgrGreen  = "\x1b[32m"
	sgrBold   = "\x1b[1m"
)

// paint wraps s in sgr when colour is on.
func (t terminal) paint(sgr, s string) string {
	if !t.color {
		return s
	}
	return sgr + s + sgrReset
}

// spinnerFrames are drawn in turn while a step runs.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// progress draws a step's spinner and elapsed time on one terminal line,
// redrawn every tick until done, which clears it. Without a terminal it
// draws nothing.
type progress struct {
	w     io.Writer
	label string
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex
	frame int
}

// startProgress starts drawing label on w when t allows it; stop it with
// end (a nil *progress ends as a no-op).
func (t terminal) startProgress(w io.Writer, label string) *progress {
	if !t.progress {
		return nil
	}
	p := &progress{w: w, label: label, start: time.Now(), stop: make(chan struct{})}
	p.draw()
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				p.draw()
			}
		}
	}()
	return p
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\x1b[K%s %s %.1fs", spinnerFrames[p.frame%len(spinnerFrames)], p.label, time.Since(p.start).Seconds())
	p.frame++
}

// end stops the spinner and clears its line.
func (p *progress) end() {
	if p == nil {
		return
	}
	close(p.stop)
	p.done.Wait()
	fmt.Fprint(p.w, "\r\x1b[K")
}
