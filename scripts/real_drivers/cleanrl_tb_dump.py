"""The second step of a CleanRL run (vwxyzjn/cleanrl's single-file scripts, run unchanged):
print the scalars the script wrote to TensorBoard under ``runs/``, tag by tag.

At gymnasium 1.x the scripts print no episodic returns (their ``"final_info" in infos`` test
belongs to gymnasium 0.29's vector API), so what they log is what there is to compare: the
losses, Q-values, entropies, KL estimates and learning rates of every logged step. ``charts/SPS``
(steps per second) is a timing and is left out. (``--save-model`` is not usable there: the
evaluation that follows it waits for the same ``final_info`` and never ends.)
"""

import glob

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

for run in sorted(glob.glob("runs/*/")):
    events = EventAccumulator(run, size_guidance={"scalars": 0})
    events.Reload()
    for tag in sorted(events.Tags()["scalars"]):
        if tag == "charts/SPS":
            continue
        for event in events.Scalars(tag):
            print(f"{tag} step={event.step} value={event.value:.9g}")
