"""studies/same_records.py: two stores of an artefact's cells compared field by field; run on
the committed Table VII store against itself and against a copy with one record changed."""

import json
import shutil
from pathlib import Path

from study_modules import load_study

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "results" / "uci" / "runs"


def test_a_store_is_the_same_as_itself_and_one_changed_tuned_point_is_named(tmp_path, capsys):
    same_records = load_study("same_records")
    assert same_records.main(["gs2008_table7", str(STORE), str(STORE)]) == 0
    assert "438 records compared" in capsys.readouterr().out
    copy = tmp_path / "runs"
    shutil.copytree(STORE, copy)
    record_path = min(copy.glob("*/fold-3.json"))
    record = json.loads(record_path.read_text())
    record["selected_gamma"] = record["selected_gamma"] * 2
    record_path.write_text(json.dumps(record))
    assert same_records.main(["gs2008_table7", str(STORE), str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"{record['config_hash']} fold 3" in out and "selected_gamma" in out
    assert "1 differing field(s)" in out
