"""The claim ledger: what the candidate (and the interviewer) said, as typed, checked figures.

    from interviewer.claims import build_ledger
    ledger = build_ledger([("interviewer", "..."), ("candidate", "...")])
    for claim in ledger.wrong(): print(claim.kind, claim.value, claim.check.explanation)

Modules: numbers (numbers and units), segments (sentences, Markdown tables), kinds and attach
(which quantity a number is, and its flags), subjects (model/GPU/dtype carried across turns),
physics (the checks), models (pydantic types), vocab (units.yaml and kinds.yaml, compiled).
"""
from interviewer.claims.ledger import build_ledger
from interviewer.claims.models import Check, Claim, Ledger, Subject

__all__ = ["build_ledger", "Check", "Claim", "Ledger", "Subject"]
