"""What ``sluice bench`` shows: the table on the terminal and the PNG chart."""

import os

from sluice.tools.bench_loaders import SYNTHETIC

BASELINES = ["torchvision-tensor", "torchvision-pil"]  # the chart's ratios: the faster that ran
BUSY_MARK = "*"


def machine(results=()):
    """{"cores", "cpu", "gpu"} of this machine; the GPU's name as a child process saw it."""
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name")), None)
    except OSError:
        pass
    gpu = next((r["gpu_name"] for r in results if r.get("gpu_name")), None)
    return {"cores": os.cpu_count() or 1, "cpu": cpu, "gpu": gpu}


def describe_machine(m):
    """'32 cores (AMD EPYC 9454), NVIDIA H100 80GB HBM3' or '2 cores, no GPU'."""
    cpu = f" ({m['cpu']})" if m.get("cpu") else ""
    return f"{m['cores']} cores{cpu}, {m['gpu'] or 'no GPU'}"


def describe_work(meta):
    work = f"training {meta['train']} on " if meta.get("train") else ""
    return (f"{work}RandomResizedCrop 224, flip, normalise; batch {meta['batch_size']}; "
            f"{meta['images']:,} images; {meta['workers']} worker{'s' if meta['workers'] > 1 else ''}"
            " (Sluice threads, torchvision processes)")


def _ratio(result, baseline, width):
    """'1.23x' right-aligned in width; '-' when the baseline did not run."""
    if not baseline:
        return f"{'-':>{width}s}"
    return f"{result['images_per_s'] / baseline:{width - 1}.2f}x"


def table(results, meta=None):
    base = {r["loader"]: r.get("images_per_s") for r in results if "images_per_s" in r}
    ceiling = SYNTHETIC in base
    lines = [f"{'loader':28s} {'images/s':>11s} {'vs tv-tensor':>12s} {'vs tv-pil':>10s} "
             + (f"{'of synthetic':>12s} " if ceiling else "")
             + f"{'CPU util':>8s} {'RSS MB':>8s} {'dev MB':>7s} {'1st batch':>9s} {'hw share':>8s}"]
    busy = []
    for r in results:
        if "error" in r:
            lines.append(f"{r['loader']:28s} failed: {r['error']}")
            continue
        if "skipped" in r:
            lines.append(f"{r['loader']:28s} skipped: {r['skipped']}")
            continue
        mark = BUSY_MARK if r.get("busy") else " "
        if r.get("busy"):
            busy.append(r)
        lines.append(
            f"{r['loader']:28s} {r['images_per_s']:10,.0f}{mark} "
            f"{_ratio(r, base.get('torchvision-tensor'), 12)} "
            f"{_ratio(r, base.get('torchvision-pil'), 10)} "
            + (f"{100 * r['images_per_s'] / base[SYNTHETIC]:11.1f}% " if ceiling else "")
            + f"{100 * r['cpu_utilisation']:7.0f}% {r['peak_rss_mb']:8.0f} "
            f"{r.get('device_memory_mb', 0):7.0f} {r['time_to_first_batch_s']:8.2f}s "
            + (f"{r['hw_share']:8.2f}" if "hw_share" in r else f"{'-':>8s}"))
    if busy:
        worst = max(r["other_processes_cores"] for r in busy)
        cores = (meta or {}).get("machine", {}).get("cores") or os.cpu_count()
        lines.append(f"{BUSY_MARK} measured on a busy machine: other processes used up to "
                     f"{worst:.1f} of the {cores} cores meanwhile; these figures are not the "
                     "loader's alone: run again on an idle machine")
    return "\n".join(lines)


def chart(results, meta, path):
    """A bar chart of images/s of the loaders that ran (none failed or skipped), the ratio to the
    baseline on each bar; returns the path, or None without matplotlib or without any result."""
    ok = [r for r in results if "images_per_s" in r]
    if not ok:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rates = {r["loader"]: r["images_per_s"] for r in ok}
    # The faster torchvision loader: a ratio to the slower would flatter the others.
    baseline = max((b for b in BASELINES if b in rates), key=rates.get, default=None)
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(ok) + 2.4))
    colors = ["#999999" if r["loader"] == baseline else "#3b7dd8" for r in ok]
    bars = ax.barh([r["loader"] for r in ok], [r["images_per_s"] for r in ok], color=colors)
    for bar, r in zip(bars, ok):
        if r.get("busy"):
            bar.set_hatch("//")
        label = f" {r['images_per_s']:,.0f}"
        if r["loader"] == baseline:
            label += "  (baseline)"
        elif baseline:
            label += f"  ({r['images_per_s'] / rates[baseline]:.2f}x)"
        if r.get("busy"):
            label += "  busy machine"
        ax.text(r["images_per_s"], bar.get_y() + bar.get_height() / 2, label, va="center",
                fontsize=9)
    ax.set_xlim(0, 1.45 * max(rates.values()))  # room for the labels
    ax.invert_yaxis()
    ax.set_title("sluice bench: images/s, higher is better" + (f" (ratios to {baseline})"
                                                               if baseline else ""), fontsize=11)
    left_out = "; ".join(f"{r['loader']}: {'failed' if 'error' in r else r['skipped']}"
                         for r in results if "images_per_s" not in r)
    fig.text(0.5, 0.01, f"{describe_machine(meta['machine'])}; {meta['date']}\n"
             f"{describe_work(meta)}" + (f"\nnot shown: {left_out}" if left_out else ""),
             ha="center", va="bottom", fontsize=8)
    ax.set_xlabel("images / s")
    fig.tight_layout(rect=(0, 0.12 if left_out else 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
