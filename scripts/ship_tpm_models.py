"""Trains the throughput prediction models shipped for the SSD presets (SRC, docs/src.md) from
scratch and writes them where the build embeds them (crates/nest-qos/models/). Run it after a
change to the SSD model or to the presets; the test `test_shipped_models_predict_fresh_samples`
fails when a shipped model no longer predicts its preset.

    .venv/bin/python scripts/ship_tpm_models.py [PRESET ...]     # ~30 s CPU a preset
"""

import sys
import time
from pathlib import Path

from nestsim import tpm

OUT = Path(__file__).resolve().parent.parent / "crates" / "nest-qos" / "models"

if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    for preset in sys.argv[1:] or tpm.SHIPPED_PRESETS:
        t = time.process_time()
        doc = tpm.ship(preset, OUT / f"tpm-{preset}.json")
        print(f"{preset}: {len(doc['trees'])} trees, w importance {doc['trained_on']['importances']['w']:.4f}, "
              f"{time.process_time() - t:.0f} s CPU → {OUT / f'tpm-{preset}.json'}")
