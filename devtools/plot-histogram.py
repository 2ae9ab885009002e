#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The pmrpc authors
"""Plot the latency CDFs of rpcperf --histogram=FILE to a PNG.

    rpcperf -l 0-1 --no-pci --in-memory -- -w ring,latency --histogram=h.csv
    devtools/plot-histogram.py h.csv              # writes h.png
    devtools/plot-histogram.py h.csv -o cdf.png --tail

One curve per workload, latency on a log x axis. With --tail the y axis is
1 - CDF on a log scale, which spreads out p99 to p99.9. When FILE.rate.csv
is there (rpcperf writes it next to FILE, FILE's .csv suffix dropped) and
has rows, a second panel shows each workload's rate over time.

Needs python3-matplotlib (Debian); installs nothing itself.
"""

import argparse
import csv
import os
import sys


def rate_path(path):
    """The name rpcperf gives the rate file of --histogram=path."""
    base = path[:-4] if path.endswith('.csv') and len(path) > 4 else path
    return base + '.rate.csv'


def read_series(path, xcol, ycol):
    """{workload: ([x...], [y...])} from one of rpcperf's CSV files."""
    series = {}
    with open(path, newline='') as f:
        reader = csv.DictReader(f)
        missing = {'workload', xcol, ycol} - set(reader.fieldnames or [])
        if missing:
            sys.exit('%s: not an rpcperf CSV, no column %s'
                     % (path, ', '.join(sorted(missing))))
        for row in reader:
            xs, ys = series.setdefault(row['workload'], ([], []))
            xs.append(float(row[xcol]))
            ys.append(float(row[ycol]))
    return series


def main():
    ap = argparse.ArgumentParser(
        description='Plot rpcperf --histogram CSV latency CDFs to a PNG.')
    ap.add_argument('csv', help='the file rpcperf --histogram wrote')
    ap.add_argument('-o', '--output',
                    help='PNG to write (default: CSV name with .png)')
    ap.add_argument('--tail', action='store_true',
                    help='y axis 1 - CDF on a log scale (the tail)')
    ap.add_argument('--title', default=None, help='title of the plot')
    args = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        # Debian's python3-matplotlib is for /usr/bin/python3: another
        # python3 first in PATH (pyenv, a venv) lacks it. Try that one.
        system = '/usr/bin/python3'
        if (os.path.realpath(sys.executable) != os.path.realpath(system)
                and os.access(system, os.X_OK)
                and 'PMR_PLOT_REEXEC' not in os.environ):
            os.environ['PMR_PLOT_REEXEC'] = '1'
            os.execv(system, [system] + sys.argv)
        sys.exit('plot-histogram.py needs matplotlib: '
                 'sudo apt-get install python3-matplotlib')

    cdfs = read_series(args.csv, 'latency_us', 'percentile')
    if not cdfs:
        sys.exit('%s: no samples' % args.csv)
    rates = {}
    if os.path.exists(rate_path(args.csv)):
        rates = read_series(rate_path(args.csv), 'time_s', 'mrps')
    out = args.output
    if out is None:
        out = (args.csv[:-4] if args.csv.endswith('.csv') else args.csv)
        out += '.png'

    nrows = 2 if rates else 1
    fig, axes = plt.subplots(nrows, 1, figsize=(8, 4.5 * nrows),
                             squeeze=False)
    ax = axes[0][0]
    for wl, (lat, pct) in cdfs.items():
        if args.tail:
            # Drop p100: 1 - CDF is 0 there, off a log axis.
            pts = [(x, 1 - p / 100) for x, p in zip(lat, pct) if p < 100]
            ax.plot([x for x, _ in pts], [y for _, y in pts], label=wl)
        else:
            ax.plot(lat, [p / 100 for p in pct], label=wl)
    ax.set_xscale('log')
    ax.set_xlabel('round-trip latency (us)')
    if args.tail:
        ax.set_yscale('log')
        ax.set_ylabel('fraction slower (1 - CDF)')
    else:
        ax.set_ylabel('fraction at or below (CDF)')
        ax.set_ylim(0, 1.0)
    ax.grid(True, which='both', alpha=0.3)
    ax.legend()
    ax.set_title(args.title or 'rpcperf latency CDF: ' +
                 os.path.basename(args.csv))

    if rates:
        ax = axes[1][0]
        for wl, (t, mrps) in rates.items():
            ax.plot(t, mrps, label=wl, marker='.')
        ax.set_xlabel('time since the run started (s)')
        ax.set_ylabel('rate per 100 ms (M round trips/s)')
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
        ax.set_title('rate over time: ' +
                     os.path.basename(rate_path(args.csv)))

    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == '__main__':
    main()
