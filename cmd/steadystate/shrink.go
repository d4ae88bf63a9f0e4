package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/steadystate-dev/steadystate/chaos/schedule"
	"github.com/steadystate-dev/steadystate/reports"
	"github.com/steadystate-dev/steadystate/verdict"
)

// shrinkReplay reduces the replayed schedule to a smallest one that breaks
// the same properties (schedule.Shrink: each candidate replayed once, in
// a run of its own), writes it, and replays it c.repeat times to say how
// often it reproduces.
func (c exploreConfig) shrinkReplay(ctx context.Context, cell reports.Cell, stdout, stderr io.Writer) error {
	root := filepath.Join(c.run.root, "shrink")
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	want := c.scheduled.Breaks
	tries := 0
	breaks := func(ctx context.Context, s schedule.Schedule) (bool, error) {
		tries++
		dir := filepath.Join(root, fmt.Sprintf("replay-%03d", tries))
		file, err := writeSchedule(dir, s)
		if err != nil {
			return false, err
		}
		broke, errs, err := c.replayed(ctx, cell, dir, file, 1, want, io.Discard)
		if err != nil {
			return false, err
		}
		what := "does not break " + want
		switch {
		case broke == 1:
			what = "breaks it"
		case errs > 0:
			what = "an error (see " + dir + "), counted as not breaking"
		}
		fmt.Fprintf(stderr, "shrink: replay %d, %d step(s): %s\n", tries, len(s.Steps), what)
		return broke == 1, nil
	}
	fmt.Fprintf(stderr, "shrink: %s, %d step(s), breaks %s\n", c.replay, len(c.scheduled.Steps), want)
	out, err := schedule.Shrink(ctx, c.scheduled, breaks)
	if ctx.Err() != nil {
		// Interrupted: keep the smallest schedule that broke so far.
		file, werr := writeSchedule(root, out.Schedule)
		if werr != nil {
			return fmt.Errorf("interrupted after %d replays; keeping the smallest schedule so far: %w", out.Replays, werr)
		}
		return fmt.Errorf("interrupted after %d replays, every process stopped; the smallest schedule that broke so far (%d of %d steps): %s",
			out.Replays, len(out.Schedule.Steps), len(c.scheduled.Steps), file)
	}
	if err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	file, err := writeSchedule(root, out.Schedule)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "shrink: %d step(s) left after %d replays; replaying it %d times\n", len(out.Schedule.Steps), out.Replays, c.repeat)
	broke, errs, err := c.replayed(ctx, cell, filepath.Join(root, "reproduce"), file, c.repeat, want, stderr)
	if err != nil {
		return err
	}
	data, _ := schedule.Marshal(out.Schedule)
	fmt.Fprintf(stdout, "%s\nshrink: %d of %d step(s) left after %d replays; it broke %s again in %d of %d replays (%d errors)\nshrunk schedule: %s\n",
		data, len(out.Schedule.Steps), len(c.scheduled.Steps), out.Replays, want, broke, c.repeat, errs, file)
	if broke == 0 {
		return errors.New("the shrunk schedule did not break the properties again: the finding is flaky; keep the original")
	}
	return nil
}

// replayed runs the schedule file n times in dir and counts the runs that
// broke exactly want, and the errors.
func (c exploreConfig) replayed(ctx context.Context, cell reports.Cell, dir, file string, n int, want string, stderr io.Writer) (broke, errs int, err error) {
	run := c.runSuite(ctx, cell, filepath.Join(dir, "run"), c.suiteArgs(file, n), stderr)
	if run.Err != "" {
		return 0, 0, errors.New(run.Err)
	}
	if ctx.Err() != nil {
		return 0, 0, ctx.Err()
	}
	for _, s := range run.Specs {
		switch {
		case s.Outcome == verdict.BrokenSpec && strings.Join(s.Broken, ",") == want:
			broke++
		case s.Outcome == verdict.Error:
			errs++
		}
	}
	return broke, errs, nil
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
