package shrink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/judge/verdict"
	"github.com/steadystate-dev/steadystate/runs/exploration/tally"
)

// Replay runs the schedule file n times in a run of its own in dir,
// against the subject as explored or, when correct is set, against its
// correct mode, and tallies the runs against the wanted properties.
// progress gets the run's lines (io.Discard: none).
type Replay func(ctx context.Context, correct bool, dir, file string, n int, progress io.Writer) (Tally, error)

// Policy is a shrink of one kept schedule.
type Policy struct {
	// Schedule is the kept schedule; its Breaks are the wanted properties.
	Schedule schedule.Schedule
	// File is the schedule's file, for messages.
	File string
	// Root is the folder below which every replay runs (emptied first);
	// the shrunk schedule is written to Root/schedule.yaml.
	Root string
	// Confirm is how many replays in a row a candidate must break;
	// Repeat how many times the shrunk schedule and each it walks back to
	// are replayed.
	Confirm, Repeat int
	// Discriminate, against a seeded bug, counts a candidate only if the
	// correct mode of Subject holds on it.
	Discriminate bool
	Subject      string
	Replay       Replay
}

// Run reduces the kept schedule to a smallest one that breaks
// the same properties (schedule.Shrink: each candidate replayed once, in
// a run of its own), writes it, and replays it p.Repeat times to say how
// often it reproduces.
//
// A candidate that breaks them is replayed p.Confirm-1 times more and
// counts only if it broke every time. Against a seeded bug (Discriminate), it
// counts only if the subject's correct mode holds on it too, replayed once
// more: a shrink keeps the properties, not the mechanism, and may otherwise end on a schedule that
// breaks them by a way of its own (one a correct controller is open to
// too), which is no evidence of the bug. The shrunk schedule is then also
// replayed p.Repeat times against the correct mode.
func (p Policy) Run(ctx context.Context, stdout, stderr io.Writer) error {
	root := p.Root
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	want := p.Schedule.Breaks
	discriminate := p.Discriminate
	tries, runs := 0, 0
	breaks := func(ctx context.Context, s schedule.Schedule) (bool, error) {
		tries++
		dir := filepath.Join(root, fmt.Sprintf("replay-%03d", tries))
		file, err := writeSchedule(dir, s)
		if err != nil {
			return false, err
		}
		replay := func(correct bool, dir string, n int) func() (Tally, error) {
			return func() (Tally, error) {
				runs++
				return p.Replay(ctx, correct, dir, file, n, io.Discard)
			}
		}
		var confirm, againstCorrect func() (Tally, error)
		if p.Confirm > 1 {
			confirm = replay(false, filepath.Join(dir, "confirm"), p.Confirm-1)
		}
		if discriminate {
			againstCorrect = replay(true, filepath.Join(dir, "correct"), 1)
		}
		ok, what, err := judgeCandidate(want, replay(false, dir, 1), confirm, againstCorrect)
		if err != nil {
			return false, err
		}
		fmt.Fprintf(stderr, "shrink: replay %d, %d step(s): %s\n", tries, len(s.Steps), what)
		return ok, nil
	}
	fmt.Fprintf(stderr, "shrink: %s, %d step(s), breaks %s\n", p.File, len(p.Schedule.Steps), want)
	fmt.Fprintf(stderr, "shrink: a candidate counts if it breaks it in %d replay(s) in a row", p.Confirm)
	if discriminate {
		fmt.Fprintf(stderr, " and the correct mode of %s holds on it", p.Subject)
	}
	fmt.Fprintln(stderr)
	out, err := schedule.Shrink(ctx, p.Schedule, breaks)
	if ctx.Err() != nil {
		// Interrupted: keep the smallest schedule that broke so far.
		file, werr := writeSchedule(root, out.Schedule)
		if werr != nil {
			return fmt.Errorf("interrupted after %d candidates; keeping the smallest schedule so far: %w", out.Replays, werr)
		}
		return fmt.Errorf("interrupted after %d candidates, every process stopped; the smallest schedule that broke so far (%d of %d steps): %s",
			out.Replays, len(out.Schedule.Steps), len(p.Schedule.Steps), file)
	}
	if err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	fmt.Fprintf(stderr, "shrink: %d step(s) left after %d candidates in %d runs; replaying it %d times (a schedule that misses a replay gives way to the larger one kept before it)\n", len(out.Schedule.Steps), out.Replays, runs, p.Repeat)
	file := filepath.Join(root, "schedule.yaml")
	interrupted := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while replaying the shrunk schedule, every process stopped; it is kept at %s", file)
		}
		return err
	}
	walk, err := steadiest(len(out.Path), p.Repeat, func(i int) (Tally, error) {
		f, err := writeSchedule(filepath.Join(root, fmt.Sprintf("path-%02d", i)), out.Path[i])
		if err != nil {
			return Tally{}, err
		}
		if i < len(out.Path)-1 {
			fmt.Fprintf(stderr, "shrink: stepping back to the schedule it kept before that one (%d step(s)), replaying it %d times\n", len(out.Path[i].Steps), p.Repeat)
		}
		return p.Replay(ctx, false, filepath.Join(root, fmt.Sprintf("reproduce-%02d", i)), f, p.Repeat, stderr)
	})
	if walk.kept >= 0 {
		out.Schedule = out.Path[walk.kept]
	}
	if _, werr := writeSchedule(root, out.Schedule); werr != nil {
		return werr
	}
	if err != nil {
		return interrupted(err)
	}
	t := walk.tallies[walk.kept]
	if len(walk.tallies) > 1 {
		var tried []string
		for i := len(out.Path) - 1; i >= 0; i-- {
			if rt, ok := walk.tallies[i]; ok {
				tried = append(tried, fmt.Sprintf("%d step(s) %d/%d", len(out.Path[i].Steps), rt.Broke, p.Repeat))
			}
		}
		how := "the first that broke it every time"
		if t.Broke < p.Repeat {
			how = "none broke it every time: the one that broke it most often"
		}
		fmt.Fprintf(stdout, "shrink: walked back its path (%s); kept %s\n", strings.Join(tried, ", "), how)
	}
	data, _ := schedule.Marshal(out.Schedule)
	fmt.Fprintf(stdout, "%s\nshrink: %d of %d step(s) left after %d candidates in %d runs; it broke %s again in %d of %d replays (%d errors)\n",
		data, len(out.Schedule.Steps), len(p.Schedule.Steps), out.Replays, runs, want, t.Broke, p.Repeat, t.Errs)
	if discriminate {
		fmt.Fprintf(stderr, "shrink: replaying it %d times against the correct mode\n", p.Repeat)
		ct, err := p.Replay(ctx, true, filepath.Join(root, "reproduce-correct"), file, p.Repeat, stderr)
		if err != nil {
			return interrupted(err)
		}
		fmt.Fprintf(stdout, "shrink: the correct mode held in %d of %d replays (%d broke a property, %d errors; %d fault-free reference run(s) broke %s)\n", ct.Held, p.Repeat, ct.Broke+ct.Other, ct.Errs, ct.Ref, want)
	}
	fmt.Fprintf(stdout, "shrunk schedule: %s\n", file)
	if t.Broke == 0 {
		return errors.New("the shrunk schedule did not break the properties again: the finding is flaky; keep the original")
	}
	return nil
}

// judgeCandidate says whether a shrink candidate counts, and why: it must
// break exactly want when replayed, then in every confirming replay
// (confirm, when set: one lucky break of a narrow race is not enough), and,
// when againstCorrect is set, the correct mode must hold on it. Each later
// replay runs only if the earlier ones broke.
func judgeCandidate(want string, replay, confirm, againstCorrect func() (Tally, error)) (bool, string, error) {
	t, err := replay()
	if err != nil || t.Broke != 1 {
		return false, t.describe(want), err
	}
	if confirm != nil {
		ct, err := confirm()
		if err != nil {
			return false, "", err
		}
		if n := ct.Broke + ct.Other + ct.Held + ct.Errs; ct.Broke != n || n == 0 {
			return false, fmt.Sprintf("breaks it once, but again in only %d of %d confirming replays", ct.Broke, n), nil
		}
	}
	if againstCorrect == nil {
		return true, t.describe(want), nil
	}
	ct, err := againstCorrect()
	if err != nil {
		return false, "", err
	}
	if ct.Ref > 0 {
		return false, "breaks it, but the correct mode broke it too, in a fault-free reference run: no evidence of the bug", nil
	}
	if ct.Held != 1 || ct.Errs > 0 {
		return false, "breaks it, but the correct mode did not hold either (" + ct.describe(want) + "): no evidence of the bug", nil
	}
	return true, "breaks it; the correct mode holds", nil
}

// Tally counts a replay run's specs: those that broke exactly the wanted
// properties, those that broke others, those that held, and errors; Ref
// counts the fault-free reference runs that broke exactly the wanted
// properties (no replays, but against the correct mode no hold either).
type Tally struct{ Broke, Other, Held, Errs, Ref int }

func (t Tally) describe(want string) string {
	switch {
	case t.Broke > 0:
		return "breaks it"
	case t.Errs > 0:
		return "an error, counted as not breaking"
	case t.Other > 0:
		return "breaks other properties, not exactly " + want
	}
	return "does not break " + want
}

// Count tallies a replay run's specs against want, the properties
// (comma-separated, as a schedule's Breaks) a candidate must break. A
// reconciledObjects run's fault-free reference runs, made before every replay,
// are no replays: counted as held, they made every confirmation fail
// (two more specs than breaks) and the correct mode's one hold three. One
// that broke exactly want is counted apart (Ref): the bug at work with no
// fault at all (a seeded bug that needs none), which the shrink may take
// to no steps; but the correct mode's breaking it is no hold. One that did
// not pass otherwise is an error.
func Count(specs []verdict.Spec, want string) Tally {
	var t Tally
	for _, s := range specs {
		if tally.IsReference(s.Name) {
			// A reference run that did not pass, but for breaking what
			// the replays must break, leaves the replay without its
			// baseline: an error, never a hold.
			switch {
			case s.Outcome == verdict.BrokenSpec && strings.Join(s.Broken, ",") == want:
				t.Ref++
			case s.Outcome != verdict.Passed && s.Outcome != verdict.SkippedSpec:
				t.Errs++
			}
			continue
		}
		switch {
		case s.Outcome == verdict.BrokenSpec && strings.Join(s.Broken, ",") == want:
			t.Broke++
		case s.Outcome == verdict.BrokenSpec:
			t.Other++
		case s.Outcome == verdict.Passed:
			t.Held++
		case s.Outcome == verdict.Error:
			t.Errs++
		}
	}
	return t
}

// writeSchedule writes s as dir/schedule.yaml.
func writeSchedule(dir string, s schedule.Schedule) (string, error) {
	data, err := schedule.Marshal(s)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, "schedule.yaml")
	return file, os.WriteFile(file, data, 0o644)
}

// walk is what steadiest replayed: the tally of each schedule of the path
// it replayed, by index, and the index of the one it kept (-1 if the
// first replay could not run).
type walk struct {
	tallies map[int]Tally
	kept    int
}

// steadiest walks a shrink's path of n schedules back from its last (the
// smallest), replaying each repeat times, and keeps the first that broke
// the properties in every replay. A candidate the shrink kept may have
// broken its confirming replays by luck, on a race a larger schedule kept
// before it pins down: two breaks in a row of a 0.8 race are 0.64 likely.
// When none broke every time, it keeps the one that broke most often, the
// smallest of those. A replay that cannot run stops the walk.
func steadiest(n, repeat int, replay func(i int) (Tally, error)) (walk, error) {
	w := walk{tallies: map[int]Tally{}, kept: -1}
	for i := n - 1; i >= 0; i-- {
		t, err := replay(i)
		if err != nil {
			return w, err
		}
		w.tallies[i] = t
		if w.kept < 0 || t.Broke > w.tallies[w.kept].Broke {
			w.kept = i
		}
		if t.Broke == repeat {
			break
		}
	}
	return w, nil
}
