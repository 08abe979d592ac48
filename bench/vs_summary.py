"""The summary table of bench/embed_vs_torch.sh and bench/generate_vs_torch.sh: per configuration,
invar f32 ("invar"), invar int8 ("int8") and PyTorch ("torch"), min / median wall and CPU seconds
over the rounds and the speed-ups PyTorch time / invar time (min / min, median / median), plus a
comparison of the outputs that each script defines. Reads WORK/CONFIG.SIDE.ROUND.json, each with
"runs": [{"wall_s", "cpu_s"}] and the outputs."""
import json
import statistics


def summarize(work, rounds, configs, width, outputs_title, compare):
    """compare(side, results, f32, torch_runs) -> (note, agrees) for side "invar" and "int8", where
    each list holds a round's JSON; `width` is the configuration column's. Returns the exit status:
    1 when an "invar" comparison disagrees."""
    def runs(config, side):
        return [json.load(open(f"{work}/{config}.{side}.{r}.json")) for r in range(1, rounds + 1)]

    def stats(results, key):
        values = [r["runs"][0][key] for r in results]
        return min(values), statistics.median(values)

    print(f"{'configuration':<{width}} {'side':<8} {'wall s min/med':>16} {'cpu s min/med':>16} "
          f"{'speed-up wall':>14} {'speed-up cpu':>13}  {outputs_title}")
    differ = False
    for config in configs:
        torch_runs = runs(config, "torch")
        t_wall, t_cpu = stats(torch_runs, "wall_s"), stats(torch_runs, "cpu_s")
        f32 = runs(config, "invar")
        for side, results in (("invar", f32), ("int8", runs(config, "int8")), ("torch", torch_runs)):
            wall, cpu = stats(results, "wall_s"), stats(results, "cpu_s")
            ratios, note = "", ""
            if side != "torch":
                ratios = (f"{t_wall[0] / wall[0]:6.2f} /{t_wall[1] / wall[1]:5.2f} "
                          f"{t_cpu[0] / cpu[0]:5.2f} /{t_cpu[1] / cpu[1]:5.2f}")
                note, agrees = compare(side, results, f32, torch_runs)
                differ = differ or (side == "invar" and not agrees)
            print(f"{config:<{width}} {side:<8} {wall[0]:7.3f} /{wall[1]:7.3f} {cpu[0]:7.3f} /{cpu[1]:7.3f}  "
                  f"{ratios:<28} {note}")
    return 1 if differ else 0
