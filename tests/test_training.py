"""The grader against its training set: the 42 calibration transcripts and the blind-written batches
it was tuned on (tests/training/batch_*, 7,980 transcripts). These figures are not a measure of how
well it grades new writing (tests/test_sealed.py is); they guard against a change that undoes what
the tuning learned. The floors sit a little under the figures measured when tuning ended (exact
0.900, within one 0.998, pitfall recall 0.956, worst false pitfall 0.7%; the recall floor moved from
0.96 to 0.95 when ZZZA, then the batch with the lowest recall, joined)."""
from __future__ import annotations

import functools

from conftest import quote_problems

from interviewer.calibration import agreement, load_cases, training_batches

FLOORS = {"exact": 0.89, "within_one": 0.99, "pitfall_recall": 0.95, "false_pitfall": 0.02}


@functools.lru_cache(maxsize=None)
def training():
    cases = load_cases()
    for folder in training_batches():
        cases = cases + load_cases(folder)
    return agreement(cases)


def test_the_training_batches_are_all_there():
    names = [f.name for f in training_batches()]
    assert names == [f"batch_{b}" for b in [*"abcdefghijklmnopqrstuvwxyz", *(f"z{c}" for c in "abcdefghijklmnopqrstuvwxyz"),
                                            "zza", "zzb", "zzc", "zzd", "zze", "zzf", "zzg", "zzh", "zzi", "zzj", "zzk", "zzl", "zzm", "zzn", "zzo", "zzp", "zzq", "zzr", "zzs", "zzt", "zzu", "zzv", "zzw", "zzx", "zzy", "zzz", "zzza", "zzzb", "zzzc", "zzzd", "zzze", "zzzf", "zzzg", "zzzh", "zzzi", "zzzj", "zzzk", "zzzl", "zzzm", "zzzn", "zzzo", "zzzp", "zzzq", "zzzr", "zzzs", "zzzt", "zzzu", "zzzv", "zzzw", "zzzx", "zzzy", "zzzz", "zzzza", "zzzzb", "zzzzc", "zzzzd", "zzzze", "zzzzf", "zzzzg", "zzzzh", "zzzzi", "zzzzj", "zzzzk", "zzzzl", "zzzzm", "zzzzn", "zzzzo", "zzzzp", "zzzzq", "zzzzr", "zzzzs", "zzzzt", "zzzzu", "zzzzv", "zzzzw", "zzzzx", "zzzzy", "zzzzz", "zzzzza", "zzzzzb", "zzzzzc", "zzzzzd", "zzzzze", "zzzzzf", "zzzzzg", "zzzzzh", "zzzzzi", "zzzzzj", "zzzzzk", "zzzzzl", "zzzzzm", "zzzzzn", "zzzzzo", "zzzzzp", "zzzzzq", "zzzzzr", "zzzzzs", "zzzzzt", "zzzzzu", "zzzzzv", "zzzzzw", "zzzzzx", "zzzzzy", "zzzzzz", "zzzzzza", "zzzzzzb", "zzzzzzc", "zzzzzzd", "zzzzzze", "zzzzzzf", "zzzzzzg", "zzzzzzh", "zzzzzzi", "zzzzzzj", "zzzzzzk", "zzzzzzl", "zzzzzzm", "zzzzzzn", "zzzzzzo", "zzzzzzp", "zzzzzzq", "zzzzzzr", "zzzzzzs", "zzzzzzt", "zzzzzzu", "zzzzzzv", "zzzzzzw", "zzzzzzx", "zzzzzzy", "zzzzzzz", "zzzzzzza", "zzzzzzzb", "zzzzzzzc", "zzzzzzzd", "zzzzzzze", "zzzzzzzf", "zzzzzzzg", "zzzzzzzh", "zzzzzzzi", "zzzzzzzj", "zzzzzzzk", "zzzzzzzl", "zzzzzzzm", "zzzzzzzn", "zzzzzzzo", "zzzzzzzp", "zzzzzzzq", "zzzzzzzr", "zzzzzzzs", "zzzzzzzt", "zzzzzzzu", "zzzzzzzv", "zzzzzzzw", "zzzzzzzx", "zzzzzzzy", "zzzzzzzz", "zzzzzzzza", "zzzzzzzzb", "zzzzzzzzc", "zzzzzzzzd", "zzzzzzzze", "zzzzzzzzf", "zzzzzzzzg", "zzzzzzzzh", "zzzzzzzzi", "zzzzzzzzj", "zzzzzzzzk", "zzzzzzzzl", "zzzzzzzzm", "zzzzzzzzn", "zzzzzzzzo", "zzzzzzzzp", "zzzzzzzzq", "zzzzzzzzr", "zzzzzzzzs", "zzzzzzzzt", "zzzzzzzzu", "zzzzzzzzv", "zzzzzzzzw", "zzzzzzzzx", "zzzzzzzzy", "zzzzzzzzz", "zzzzzzzzza", "zzzzzzzzzb", "zzzzzzzzzc", "zzzzzzzzzd", "zzzzzzzzze", "zzzzzzzzzf", "zzzzzzzzzg", "zzzzzzzzzh", "zzzzzzzzzi", "zzzzzzzzzj", "zzzzzzzzzk", "zzzzzzzzzl", "zzzzzzzzzm", "zzzzzzzzzn", "zzzzzzzzzo", "zzzzzzzzzp", "zzzzzzzzzq", "zzzzzzzzzr", "zzzzzzzzzs", "zzzzzzzzzt", "zzzzzzzzzu", "zzzzzzzzzv", "zzzzzzzzzw", "zzzzzzzzzx", "zzzzzzzzzy", "zzzzzzzzzz", "zzzzzzzzzza", "zzzzzzzzzzb", "zzzzzzzzzzc", "zzzzzzzzzzd", "zzzzzzzzzze", "zzzzzzzzzzf"]], names
    assert len(training().cases) == 42 + 7980


def test_training_agreement_does_not_regress():
    a = training()
    assert a.exact_rate >= FLOORS["exact"], a.summary()
    assert a.within_one_rate >= FLOORS["within_one"], a.summary()
    assert a.pitfall_recall >= FLOORS["pitfall_recall"], a.summary()
    worst = max(a.false_pitfall_rates.values(), default=0.0)
    assert worst <= FLOORS["false_pitfall"], a.summary()


def test_training_quotes_and_claims_are_exact_substrings():
    assert not quote_problems(training().cases)
