"""When Spark workers get a core of their own (webseg.pipeline.spark pin modes)."""

from __future__ import annotations

import pytest

from webseg.pipeline.spark import should_pin, task_slots


@pytest.mark.parametrize(("master", "slots"), [
    ("local", 1), ("local[1]", 1), ("local[2]", 2), ("local[16]", 16), ("local[4, 3]", 4),
])
def test_task_slots_of_local_masters(master: str, slots: int) -> None:
    assert task_slots(master) == slots


def test_task_slots_star_is_this_machines_cores() -> None:
    assert task_slots("local[*]") >= 1


def test_task_slots_on_a_cluster_come_from_executor_cores() -> None:
    assert task_slots("spark://head:7077", {"spark.executor.cores": "4"}) == 4
    assert task_slots("yarn", {}) == 0  # unknown: auto does not pin
    assert task_slots("yarn", {"spark.executor.cores": "x"}) == 0


def test_auto_pins_only_when_slots_cover_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBSEG_SPARK_PIN", raising=False)
    assert should_pin("auto", 2, 2) and should_pin("auto", 8, 4)
    assert not should_pin("auto", 1, 2)  # local[1] on 2 cores: pinning would idle a core
    assert not should_pin("auto", 0, 2)  # unknown slot count
    assert should_pin("on", 1, 2) and not should_pin("off", 8, 2)
    with pytest.raises(ValueError, match="pin must be one of"):
        should_pin("always", 2, 2)


def test_environment_overrides_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBSEG_SPARK_PIN", "0")
    assert not should_pin("on", 2, 2)
    monkeypatch.setenv("WEBSEG_SPARK_PIN", "1")
    assert should_pin("off", 1, 2)
