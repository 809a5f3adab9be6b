"""The relevance floor's logistic fit, fold split and hook shares (issue 23), on tiny synthetic cases."""

from __future__ import annotations

import numpy as np

from benchmarks.relevance.floor_features import named_files
from benchmarks.relevance.floor_fit import choose_floor, fit_logistic, hook_outcome, prompt_folds


def test_the_folds_partition_the_prompts_and_every_fold_has_both_kinds():
    answerable, unanswerable = [f"a{i}" for i in range(23)], [f"u{i}" for i in range(7)]
    folds = prompt_folds(answerable, unanswerable, k=5, seed=1)
    flat = [key for fold in folds for key in fold]
    assert sorted(flat) == sorted(answerable + unanswerable) and len(flat) == len(set(flat))
    assert all(any(k.startswith("u") for k in fold) and any(k.startswith("a") for k in fold) for fold in folds)
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    assert folds == prompt_folds(answerable, unanswerable, k=5, seed=1)
    assert folds != prompt_folds(answerable, unanswerable, k=5, seed=2)


def test_separable_data_gets_a_perfect_held_out_score():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(400, 2))
    x = x[np.abs(x[:, 0] + 0.2 * x[:, 1] - 0.6) > 0.1]  # a margin: the classes are separable
    y = (x[:, 0] + 0.2 * x[:, 1] > 0.6).astype(float)
    model = fit_logistic(x[:150], y[:150], ("a", "b"))
    predicted = model.probability(x[150:]) >= 0.5
    assert len(x) > 200 and (predicted == y[150:].astype(bool)).all()
    assert model.weights[0] > model.weights[1] > 0  # the fit, not the standardisation, orders the features


def test_the_hook_injects_at_most_three_over_the_floor_and_the_floor_is_chosen_to_meet_the_targets():
    # (grades in order, relevance, answerable): the relevant entries score high, the unanswerable prompt low
    prompts = [([2, 0, 1, 2], np.array([0.9, 0.3, 0.8, 0.95]), True),
               ([0, 2, 0], np.array([0.2, 0.7, 0.1]), True),
               ([0, 0, 0], np.array([0.4, 0.3, 0.2]), False)]
    everything = hook_outcome(prompts, 0.0)
    assert everything["injected_per_prompt"] == 3.0 and everything["silent"] == 0.0  # never more than 3
    floor, outcome = choose_floor(prompts)
    assert 0.4 < floor <= 0.7
    assert outcome == {"grade2": 1.0, "relevant": 1.0, "silent": 1.0, "injected_per_prompt": 1.0}


def test_named_files_are_paths_and_file_names_in_the_prompt():
    found = named_files("hooks/session-start.sh dies; see board.py, not Phase.DESIGN", ("src/a.py",))
    assert found == ("src/a.py", "hooks/session-start.sh", "board.py")
