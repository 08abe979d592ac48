"""The summary table of bench/embed_vs_torch.sh, bench/generate_vs_torch.sh and
bench/embed_vs_onnxruntime.sh: per configuration and side (invar f32 "invar", invar int8 "int8", and
the baselines: "torch", or ONNX Runtime's "ort" and "ort-int8"), min / median wall and CPU seconds
over the rounds, the speed-ups baseline time / invar time (min / min, median / median) against each
side's baseline, and a comparison of the outputs that each script defines. Reads
WORK/CONFIG.SIDE.ROUND.json, each with "runs": [{"wall_s", "cpu_s"}] and the outputs."""
import json
import statistics

AGAINST_TORCH = (("invar", "torch"), ("int8", "torch"), ("torch", None))


def compare_embeddings(reference, reference_name):
    """compare() for the embedding scripts: the f32 baseline `reference` gets no note; invar's f32
    embeddings are checked against it (≤ 1e-4, named `reference_name`); every other side gets its
    lowest cosine to invar's f32."""
    import numpy as np

    def unit(v):
        v = np.array(v)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def compare(side, runs):
        if side == reference:
            return "", True
        if side == "invar":
            diff = max(float(np.abs(np.array(r["embeddings"]) - np.array(t["embeddings"])).max())
                       for r, t in zip(runs("invar"), runs(reference)))
            return f"max |f32 - {reference_name}| {diff:.1e}", diff <= 1e-4
        cosine = min(float((unit(r["embeddings"]) * unit(f["embeddings"])).sum(1).min())
                     for r, f in zip(runs(side), runs("invar")))
        return f"lowest cosine to invar f32 {cosine:.5f}", True
    return compare


def summarize(work, rounds, configs, width, outputs_title, compare, sides=AGAINST_TORCH):
    """sides: (side, the baseline its speed-ups are taken against, or None for a baseline's row).
    compare(side, runs) -> (note, agrees) for every side, where runs(side) lists that side's JSON of
    each round in the configuration; `width` is the configuration column's. Returns the exit status:
    1 when an "invar" comparison disagrees."""
    def stats(results, key):
        values = [r["runs"][0][key] for r in results]
        return min(values), statistics.median(values)

    print(f"{'configuration':<{width}} {'side':<8} {'wall s min/med':>16} {'cpu s min/med':>16} "
          f"{'speed-up wall':>14} {'speed-up cpu':>13}  {outputs_title}")
    differ = False
    for config in configs:
        loaded = {}

        def runs(side):
            if side not in loaded:
                loaded[side] = [json.load(open(f"{work}/{config}.{side}.{r}.json")) for r in range(1, rounds + 1)]
            return loaded[side]

        for side, baseline in sides:
            wall, cpu = stats(runs(side), "wall_s"), stats(runs(side), "cpu_s")
            ratios = ""
            if baseline:
                b_wall, b_cpu = stats(runs(baseline), "wall_s"), stats(runs(baseline), "cpu_s")
                ratios = (f"{b_wall[0] / wall[0]:6.2f} /{b_wall[1] / wall[1]:5.2f} "
                          f"{b_cpu[0] / cpu[0]:5.2f} /{b_cpu[1] / cpu[1]:5.2f}")
            note, agrees = compare(side, runs)
            differ = differ or (side == "invar" and not agrees)
            print(f"{config:<{width}} {side:<8} {wall[0]:7.3f} /{wall[1]:7.3f} {cpu[0]:7.3f} /{cpu[1]:7.3f}  "
                  f"{ratios:<28} {note}".rstrip())
    return 1 if differ else 0
