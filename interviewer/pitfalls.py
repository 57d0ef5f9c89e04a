"""Pitfalls the grader raises, from the evidence of a whole round (cues.yaml `pitfalls`).

* Patterns: a match in a candidate turn, outside a negated or hypothetical clause ("I'm not quoting
  the vLLM blog's 24x" is not quoting it), and with none of `unless_near` in its sentence or just
  before it ("different thing that happens to share a name" tells the two KV caches apart).
* `when` / `unless_any`: raised by an item present in the round unless one of the others is
  ("continuous batching" with no limit anywhere). With `unless_tied: ITEM`, the clearing item must
  sit in a turn on the same subject: a turn that names ITEM, or answers an interviewer turn that
  does (a "canary" for a model rollout elsewhere does not make int4 safe).
* `names` / `menu` / `deferral`: a list of policies without a choice - `min_names` distinct policy
  names in one sentence, or two joined by "or" beside a deferral ("it depends", "configurable"),
  or a menu of options ("we could X, or Y, or Z") with a deferral in the same turn.
* `cleared_by`: found anywhere in the candidate's turns, withdraws the pitfall (a choice made).
"""
from __future__ import annotations

import functools
import re

from interviewer.claims.vocab import any_of
from interviewer.evidence import Evidence, Hit, hypothetical_at, in_summary, negated_at, quote_around
from interviewer.quickre import Sentences, folds, guarded, may_match, needed_literals, sentence_reach
from interviewer.rubric import Pitfall, Rubric

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|(?=\n)|$)")  # a bullet line with no full stop is a sentence too
# an answer's opening sentence, through a trail-off: "Probably... drain it now?" (the pick still asked, not "Probably...")
_OPENING = re.compile(r"(?:[^.!?\n]*(?:\.\.\.|…)[ \t]*)*[^.!?\n]+(?:[.!?]+|(?=\n)|$)")
# "depending on which policy we went with" is no choice made
_CONDITIONAL = re.compile(r"\b(?:which|whichever|depending|whether|if)\b", re.I)
_OR = re.compile(r"\bor\b", re.I)


def derive_pitfalls(ev: Evidence, rubric: Rubric, family: str) -> None:
    # lists first: an option left open in a menu is named, not adopted ("Or dynamic batching like
    # Triton" raises no "batching without limits")
    ordered = sorted(rubric.pitfalls.values(), key=lambda p: not (p.names or p.menu))
    for p in ordered:
        if p.families and family not in p.families:
            continue
        present = ev.present
        if p.names or p.menu:
            # a list answered by a choice is withdrawn; a later list left open still counts
            since = 0
            while _policy_list(ev, p, since) and _cleared(ev, p, ev.pitfalls[p.id]):
                since = ev.pitfalls.pop(p.id).turn + 1
                ev.pitfall_kinds.pop(p.id, None)
        if p.when and p.when in present and p.id not in ev.pitfalls:
            # (the question's own target said back - "you said a 150 ms p99 budget" - is no tail the candidate argues;
            # a limit said in an answer the KV cache's confusion taints earns nothing, but it was said: "I'd cap it at 32
            # active sequences. And when the KV cache fills up, we spill ... to a Redis cluster" sets a limit)
            clearing = _family_scoped(p.unless_any, rubric, family) & (present | ev.tainted | (ev.named - (ev.echoed - present)))
            if p.unless_tied and clearing:
                clearing = {i for i in clearing if _tied(ev, p.unless_tied, i)}
            if not clearing:
                ev.pitfalls[p.id] = ev.first(p.when)
                ev.pitfall_kinds[p.id] = "when"
        if p.id in ev.pitfalls and p.cleared_by and not (p.names or p.menu) and _cleared(ev, p, ev.pitfalls[p.id]):
            del ev.pitfalls[p.id]
            ev.pitfall_kinds.pop(p.id, None)
        if p.id in ev.pitfalls and (p.names or p.menu) and p.criterion:
            # (and the items other pitfalls are raised by: a menu's "FCFS with continuous batching" adopts no batching)
            # ... and a trade-off said only of the options left open ("Each has pros and cons: ... recompute is
            # safe but costs GPU time") is no trade-off accepted
            _unchosen(ev, ev.pitfalls[p.id], [*rubric.spec(family, p.criterion).items, "tradeoff",
                                              *(q.when for q in rubric.pitfalls.values() if q.when)], p)
    for pid in ev.pitfalls:
        ev.pitfall_kinds.setdefault(pid, "pattern")


def _family_scoped(items: list[str], rubric: Rubric, family: str) -> set[str]:
    """The clearing items this family's reading uses, when it uses any: a storage round's p99 put
    target does not clear averages in a restart round, where "p99 inter-token latency is 45 ms" reads
    like one."""
    used = set()
    for cid in rubric.criteria_for(family):
        used |= set(rubric.spec(family, cid).items)
    scoped = set(items) & used
    return scoped or set(items)


def _cleared(ev: Evidence, p: Pitfall, hit: Hit | None) -> bool:
    """A choice clears the list it answers: in the list's answer or a later one (a menu: its answer or
    the next), not a choice made before the list was given. In a later answer, a list of policy names
    is answered by a choice that names one ("I'd go with weighted fair share"): "I'd start with
    packing", said there of placement, leaves it open."""
    if hit is None:
        near = [(t, False, 0) for t in ev.texts.values()]
    else:
        later = sorted(t for t in ev.texts if t >= hit.turn)
        if ev.pitfall_kinds.get(p.id) == "menu":
            # a menu is answered in its own answer or the next ("which one?"); "I pick B" two questions later
            # chooses something else
            later = later[:2]
        named = ev.pitfall_kinds.get(p.id) == "names"
        # in the list's own answer, only a choice said after the list ("I'd go with a modern stack. For
        # routing there's a bunch of strategies ..." has chosen nothing)
        listed = bool(p.names or p.menu)
        near = [(ev.texts[t], named and t > hit.turn, hit.start if t == hit.turn and listed else 0) for t in later]
    deferral, _menu, names = _unions(p)
    # "if"/"which" just before the choice, in its own sentence ("... which it isn't here. So I choose" chooses)
    return any(not negated_at(t, m.start())
               # a choice said first in a closing summary ("## Summary ... 2. I chose weighted fair share") was
               # never made in the round: it restates what the body left open
               and not in_summary(t, m.start())
               and not _CONDITIONAL.search(t, max(0, m.start() - 40, _sentence_start(t, m.start())), m.start())
               and not _NO_CHOICE.match(t, m.end())
               # "I'd start with quotas plus priority classes ... and let the data decide", "I'd want to talk to
               # the teams first before committing, and I'd probably start with quotas": no commitment
               and not (deferral and deferral.search(t, _choice_clause(t, m.start()), _sentence_end(t, m.end())))
               and (not must_name or (names is not None and names.search(t, m.start(), _sentence_end(t, m.end()))))
               # "I'd start with priority classes plus fair share, or plain quotas": still two options
               and not _or_another(t, m.end(), names)
               for pat, need, reach in _clearing(p.id, id(p)) for t, must_name, after in near
               if _sentences(t).may_match(need) for m in _sentences(t).finditer(pat, reach, need, after)) \
        or _answered_pick(ev, p, hit) or _table_row_taken(ev, hit)


_TABLE_ROW = re.compile(r"^\s*\|\s*([^|\n]+?)\s*\|", re.M)


def _table_row_taken(ev: Evidence, hit: Hit | None) -> bool:
    """A table of options answered below it by one row's own words: "| reserve 4 permanently | ... | / | drain on
    demand | ... |" then "I'd drain on demand, on the second host" takes that row."""
    if hit is None or not hit.quote.lstrip().startswith("|"):
        return False
    text = ev.texts[hit.turn]
    rows, end = [], hit.start
    for m in _TABLE_ROW.finditer(text, hit.start):
        if m.start() > end + 1:
            break  # the table ended: a line that is no row
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        cell = m.group(1).strip()
        if cell and not set(cell) <= set("-: "):
            rows.append(cell)
    firsts = {" ".join(r.lower().split()[:2]) for r in rows[1:] if r.split()}  # rows[0] is the header
    if not firsts:
        return False
    taken = re.compile(r"\b(?:i.d|we.d|i\s+would|we\s+would|i.ll|we.ll)\s+(?:go\s+with\s+|pick\s+|choose\s+|take\s+)?(?:the\s+)?(?:"
                       + "|".join(re.escape(f) for f in sorted(firsts)) + r")\b", re.I)
    return taken.search(text, end) is not None


# the textbook answer named, not chosen: "Group commit is the usual answer; io_uring helps too."
_HEDGED_PICK = re.compile(r"\b(?:is|are)\s+the\s+(?:usual|standard|common|typical|textbook|default|obvious)\s+(?:answer|choice|pick|option)\b",
                          re.I)
# the options explained, none taken: "yeah that's exactly why group commit and io_uring exist, they make fsync not a
# bottleneck"
_WHY_THEY_EXIST = re.compile(r"\b(?:that.s|that\s+is|this\s+is)\s+(?:exactly\s+|precisely\s+)?why\s+[^.!?\n]{0,80}?\b(?:exist|"
                             r"are\s+there|were\s+(?:invented|built))\b", re.I)
# a pick that points at a region of the options rather than one of them
_SPECTRUM_PICK = re.compile(r"\b\w+-ish\s+(?:end|side)\b|\bsomewhere\s+(?:in\s+the\s+middle|between|on\s+the\s+\w+\s+(?:end|side))\b"
                            r"|\b(?:lean|leaning)\s+towards?\s+the\s+\w+\s+end\b", re.I)
# a first sentence that still does not choose: "Default... depends.", "whatever the load test favours"
_UNDECIDED = re.compile(r"\bor\b|\?|\b(?:depend\w*|whatever|whichever|varies|not\s+sure|hard\s+to\s+say)\b", re.I)


@functools.lru_cache(maxsize=1024)
def _sentences(text: str) -> Sentences:
    """A candidate answer as the clearing patterns read it (each pitfall's, each time a list is cleared)."""
    return Sentences(text, text.lower())


def _still_tempted(text: str, p: Pitfall) -> bool:
    """An answer that keeps another policy in view as tempting ("though prefix-aware is tempting")."""
    return any(_names_in(t.group(0), p) for t in _TEMPTED.finditer(text))


def _or_another(text: str, pos: int, names: re.Pattern | None) -> bool:
    """After a choice's verb, an "or" followed by another policy name in the same sentence."""
    if names is None:
        return False
    end = _sentence_end(text, pos)
    o = _OR_ALT.search(text, pos, end)  # (an "or" that offers another: not "every hundred milliseconds or so")
    if o and names.search(text, o.end(), end):
        return True
    # ... or the next sentence opening on "Or" another: "I'd probably start with round robin and see. Or least connections."
    nxt = _OR_OPENS.match(text, end)
    return bool(nxt and names.search(text, nxt.end(), _sentence_end(text, nxt.end())))


# the first name qualified by the next, not listed beside it: "Weighted fair share over GPUs with guaranteed quotas"
_OPENS_ON_IT = re.compile(r"\W*(?:[\w-]+\s+)?", re.I)  # ("Weighted fair share ...": at most a word before the name)
_QUALIFIES = re.compile(r"[^,;/|\n]*?\b(?:with|over|using|on\s+top\s+of|backed\s+by|plus)\b[^,;/|\n]*", re.I)
_OR_OPENS = re.compile(r"[.!?]?\s+(?:um,?\s+|uh,?\s+|maybe\s+)?or\b", re.I)
# one pick for each case, or a mix of the picks: "if X I'd lean A; if not, maybe B", "or a hybrid of the two"
_CASE_PICKS = re.compile(r"\bif\b[^.!?]{0,80}?[;,]\s*(?:and\s+|but\s+)?(?:if\s+not|otherwise)\b|"
                         r"\bor\s+(?:a\s+|some\s+)?(?:hybrid|mix|combination)\s+of\s+(?:the\s+|those\s+|these\s+)?(?:two|both|them)\b", re.I)
# another option kept in view after the pick: "though DRF is attractive", "but fair share is also tempting", "but I'd
# keep quotas as a fallback in case teams push back"
_TEMPTED = re.compile(r"\b(?:though|but|although)\s+[^.;!?\n]{0,60}?\b(?:is|are|looks|sounds|seems)\s+(?:also\s+|really\s+|very\s+|pretty\s+)?"
                      r"(?:tempting|attractive|appealing)\b"
                      r"|\b(?:though|but|although)\s+(?:i.d|we.d|i\s+would|we\s+would)\s+(?:still\s+)?keep\s+[^.;!?\n]{0,40}?\bas\s+"
                      r"(?:a\s+)?(?:fallback|backup|plan\s+b|hedge)\b", re.I)


def _deferral_in(p: Pitfall, sentence: str) -> bool:
    deferral = _unions(p)[0]
    return bool(deferral and deferral.search(sentence))


def _sentence_start(text: str, pos: int) -> int:
    """Where the sentence holding `pos` starts."""
    return max(text.rfind(ch, 0, pos) for ch in ".!?\n") + 1


def _asks_for_one(p: Pitfall, text: str) -> bool:
    """Does an interviewer turn ask for one of the options ("Pick one. Not a menu.")?"""
    return any(q.search(text) for q in p.pick_prompt)


_BUT = re.compile(r"\bbut\b", re.I)


def _choice_clause(text: str, pos: int) -> int:
    """Where the clause of a choice at `pos` starts: its sentence, after a "but" that turns from a
    deferral to the choice ("It depends a bit on traffic, but I'll pick one: least outstanding work")."""
    start = _sentence_start(text, pos)
    turns = list(_BUT.finditer(text, start, pos))
    return turns[-1].end() if turns else start


def _sentence_end(text: str, pos: int) -> int:
    m = _SENTENCE.match(text, pos)
    return m.end() if m else len(text)


def _answered_pick(ev: Evidence, p: Pitfall, hit: Hit | None) -> bool:
    """Asked "which one?" after the list, the candidate answered without deferring again: that
    answer is the choice ("Per-team quotas plus two priority classes. Quotas because..."). Asked
    before it, an answer that opens on one policy chose it, and the list after is what it turned down."""
    if hit is None or not p.pick_prompt:
        return False
    for i, text in ev.context.items():
        asked_before = i < hit.turn and min((t for t in ev.texts if t > i), default=None) == hit.turn
        if (i > hit.turn or asked_before) and _asks_for_one(p, text):
            answer = min((t for t in ev.texts if t > i), default=None)
            # "Pick one." after another question whose answer offered options of its own asks about those
            # ("- a human would notice / - or a rate limit on drains / => any of those"), not the list before
            if i > hit.turn and any(_offers_options(p, ev.texts[t]) for t in ev.texts if hit.turn < t < i):
                continue
            if answer is not None:
                said = ev.texts[answer]
                deferred, names, menu = _scan(p, said)
                if deferred or _NO_CHOICE.match(said) or _or_sentence(said, p) or _HEDGED_PICK.search(said) \
                        or _WHY_THEY_EXIST.search(said):
                    continue
                first = _OPENING.match(said.lstrip())
                if asked_before:
                    # the list sits in the answer to "pick one" itself: it is the rejected alternatives when the
                    # answer opens on one choice ("Weighted fair share on decayed GPU-hours, ... I looked at
                    # strict priority and FIFO with quotas: ..., so neither")
                    lead = len(said) - len(said.lstrip())
                    opening = sum(1 for x in names if first is not None and lead <= x < lead + first.end())
                    if opening == 1 and hit.start >= lead + first.end() and not _UNDECIDED.search(first.group(0)) \
                            and not _MIXED.search(first.group(0)):
                        return True
                    continue
                # "Probably least-connections, or maybe the prefix hashing if ...": two options still open
                if first is not None and _or_between(first.group(0), p):
                    continue
                # "Then the strict-ish end of the spectrum - but group commit and batching give you most of the throughput
                # back": a region of the options pointed at, none of them taken
                if first is not None and _SPECTRUM_PICK.search(first.group(0)):
                    continue
                # "If I had to... probably least connections, though prefix-aware is tempting": another still in view
                if _still_tempted(said, p):
                    continue
                # "So you'd want the quotas, with the sharing on top, and priorities for the serving side. It's a blend.": the
                # pick called a mix in so many words
                if _CALLED_A_MIX.search(said):
                    continue
                # "If product gave me a looser budget I'd lean least-outstanding; if not, maybe prefix-affinity, or a
                # hybrid of the two": one pick for each case, or a mix of them, is none
                if first is not None and _CASE_PICKS.search(first.group(0)):
                    continue
                # "Then probably quotas, but with fair share for the leftover capacity, and priorities for serving.":
                # three policies where one was asked for is the list again, mixed
                if first is not None and len(_names_in(first.group(0), p)) >= p.min_names:
                    continue
                # "Group commit is the standard answer there - batching writes, maybe pipelined writes too, or
                # multiple WAL files in parallel, or a write buffer manager.": the pick is a menu again
                if first is not None and menu and _OR.search(first.group(0)) \
                        and any(m.search(first.group(0)) for m in p.menu):
                    continue
                # a policy named, or a short first sentence that is one option ("Prefix affinity with a load bound.")
                # (not a short list: "Preemption with checkpointing, graceful eviction, and the PriorityClass decides.";
                # nor a mix: "It would be a combination, honestly: ..."; nor a sentence about something else asked with
                # it: "Which one? And in what order do the log write ... happen?" - "Log and memory and ack, the WAL
                # handles ordering.")
                short = first is not None and 2 <= len(first.group(0).split()) <= 12 and not menu \
                    and not _UNDECIDED.search(first.group(0)) and first.group(0).count(",") < 2 \
                    and not _MIXED.search(first.group(0)) \
                    and (bool(_names_in(first.group(0), p)) or _shares_a_word(first.group(0), hit.quote))
                # "I'm not sure... maybe quotas for X and fair share for Y, and inference gets priority": a hedged mix
                if first is not None and _UNDECIDED.search(first.group(0)) and len(_names_in(said, p)) >= p.min_names:
                    continue
                # a menu of actions answered by one of them: "Wait for the next hourly checkpoint, then drain, unless ..."
                acted = ev.pitfall_kinds.get(p.id) == "menu" and first is not None and not menu \
                    and not _UNDECIDED.search(first.group(0))
                # a list of policy names is answered by one of them: "Pick one" after five routing rules, answered
                # "Continuous batching ..., priority scheduling", picks none of the five
                if names and ev.pitfall_kinds.get(p.id) == "names" and not short \
                        and not _listed_ids(said, p) & _listed_ids(hit.quote, p):
                    continue
                if names or short or acted:
                    return True
    return False


_WORD = re.compile(r"[a-z][a-z0-9_-]{3,}")


def _shares_a_word(sentence: str, listed: str) -> bool:
    """Does a sentence hold a word (four letters or more) of the list it may answer?"""
    return bool(set(_WORD.findall(sentence.lower())) & set(_WORD.findall(listed.lower())))


def _listed_ids(text: str, p: Pitfall) -> set[int]:
    """Which of the pitfall's policy names `text` holds (by pattern)."""
    return {i for i, pat in enumerate(p.names) if pat.search(text)}


# a sentence that offers one more: "... maybe we do fair share on top. Or DRF, if memory also becomes a constraint."
_OR_SENTENCE = re.compile(r"(?:^|[.!?]\s+)or\b[^.!?\n]{0,80}", re.I)


def _or_sentence(text: str, p: Pitfall) -> bool:
    """Does the answer hold a sentence that opens on "Or" and names another policy?"""
    names = _unions(p)[2]
    return names is not None and any(names.search(m.group(0)) for m in _OR_SENTENCE.finditer(text))


def _or_between(sentence: str, p: Pitfall) -> bool:
    """A policy name followed by an "or" and another option: "least outstanding or p2c",
    "Least-connections, or maybe the prefix hashing"."""
    found = _names_in(sentence, p)
    return bool(found) and _OR_ALT.match(sentence, found[0][1]) is not None


_OR_ALT = re.compile(r"[^.,;]{0,30}?[\s,]+or\s+(?!so\b|rather\b|more\b|less\b|fewer\b|two\b|three\b|\d)", re.I)


# an answer to "pick one" that opens on "a mix" or "a combination" has picked nothing
_MIXED = re.compile(r"\b(?:mix|combination|combo|blend|hybrid)\b", re.I)
_CALLED_A_MIX = re.compile(r"(?:^|[.!?]\s+)(?:it.s|it\s+is|that.s|that\s+is|so\s+it.s)\s+(?:really\s+|basically\s+|more\s+(?:of\s+)?)?"
                           r"(?:a|an)\s+(?:blend|mix|combination|combo|hybrid)\s*(?:[.!]|$)", re.I | re.M)

# "I'd start with a combination", "we'd support all of them": picking everything is no choice
# "whatever the load test favours", "per org", "probably a mix of priority and fair share" too
_NO_CHOICE = re.compile(r"\s*(?:(?:probably|maybe|likely|honestly|i\s+think|i.d\s+say)[,\s]+)?(?:a\s+|some\s+)?"
                        r"(?:combination|mix|blend|hybrid|all\s+of\s+(?:them|these|those)|both|everything|each\s+of\s+them|"
                        r"whatever|whichever|per\s+(?:org|team|tenant|customer|region|cluster|workload|model|service|tier|product|app|use[- ]case)\b)\b", re.I)


def _unchosen(ev: Evidence, hit: Hit, items, p: Pitfall) -> None:
    """The options of a menu left open are named, not chosen: a criterion item whose evidence lies
    only in the menu's sentence, or in the deferral that follows it, counts as a name (level 1) - "we
    could resume, or recompute, or fail over" states no resume rule."""
    text = ev.texts.get(hit.turn, "")
    s = text.rfind("\n", 0, hit.start) + 1
    for m in _SENTENCE.finditer(text, s):
        if m.start() <= hit.start < m.end() or m.start() >= hit.start:
            s, e = m.start(), max(m.end(), hit.end)
            break
    else:
        return
    for m in _SENTENCE.finditer(text, e):
        if not _deferral_in(p, m.group(0)):
            break
        e = m.end()  # "Each has pros and cons: resume is fastest but risky, ...": the menu left open goes on
    # "There are a few ways. Dynamic batching, or fixed-size batches, or ... We could also shed load, or
    # ...": the menu runs from its opener, not only the sentence the list was found in
    opener = next((m for m in _SENTENCE.finditer(text) if m.start() < s and _opens_menu(m.group(0))), None)
    if opener is not None:
        s = opener.start()
    for item in items:
        hits = ev.hits.get(item)
        if not hits:
            continue
        inside = [h for h in hits if h.turn == hit.turn and s <= h.start < e]
        if inside and len(inside) == len(hits):
            ev.named_hits.setdefault(item, []).extend(inside)
            ev.unchosen.add(item)
            del ev.hits[item]


def _subject_turns(ev: Evidence, item: str) -> set[int]:
    """Candidate turns that name `item`, and those answering an interviewer turn that does."""
    turns = {h.turn for h in ev.hits.get(item, []) + ev.named_hits.get(item, [])}
    pats = _item_patterns(item)
    for i, text in ev.context.items():
        low = text.lower()
        if any(p.search(low) for p in pats):
            nxt = min((t for t in ev.texts if t > i), default=None)
            if nxt is not None:
                turns.add(nxt)
    # a short push on an answer keeps its subject: "You skipped the half I care about. How do you
    # know answers didn't get worse?" is still about the FP8 weights
    for t in sorted(turns):
        push = min((i for i in ev.context if i > t), default=None)
        if push is None or len(ev.context[push].split()) > _PUSH_WORDS or any(t < u < push for u in ev.texts):
            continue
        if _OWN_TOPIC.search(ev.context[push]):
            continue  # "You said continuous batching. What numbers go on it?" moves on to a subject of its own
        nxt = min((u for u in ev.texts if u > push), default=None)
        if nxt is not None:
            turns.add(nxt)
    return turns


_PUSH_WORDS = 25
# a push that opens a subject of its own (a number, the batch, the tail, a trade-off) no longer asks about the last one
_OWN_TOPIC = re.compile(r"\d|\bbatch\w*|\bsequences?\b|\bttft\b|\bp9\d\b|\blatency\b|\btrade-?offs?\b|\bdashboard\b"
                        r"|\bqueue\w*|\bfleet\b|\bgpus?\b|\bfailover\b|\bretr(?:y|ies)\b", re.I)


_PATTERN_CACHE: dict[str, list] = {}


def _item_patterns(item: str) -> list:
    if item not in _PATTERN_CACHE:
        from interviewer.rubric import load_rubric

        _PATTERN_CACHE[item] = list(load_rubric().items[item].patterns)
    return _PATTERN_CACHE[item]


def _tied(ev: Evidence, when: str, item: str) -> bool:
    turns = _subject_turns(ev, when)
    return any(h.turn in turns for h in ev.hits.get(item, []) + ev.named_hits.get(item, []))


def _names_in(sentence: str, p: Pitfall) -> list[tuple[int, int]]:
    """Distinct policy names in a sentence: (start, end) of the first mention of each."""
    found = {}
    for i, pat in enumerate(p.names):
        # (the topic said first is no policy: "Fairness is layered: DRF, weighted fair share, ...")
        m = next((x for x in pat.finditer(sentence) if not _TOPIC_WORD.fullmatch(x.group(0))
                  or not _TOPIC_AFTER.match(sentence, x.end())), None)
        if m and i not in found and not any(s <= m.start() < e for s, e in found.values()):
            found[i] = (m.start(), m.end())
    return sorted(found.values())


_TOPIC_WORD = re.compile(r"fairness", re.I)
_TOPIC_AFTER = re.compile(r"\s+(?:is|are)\b|\s*:", re.I)


# between two items of an enumeration: a separator and at most two words ("queues, weighted", ", or")
_LIST_GAP = re.compile(r"[\s*]*(?:[\w-]+\s*){0,2}?(?:[,/]|\bor\b|\band\b|\bplus\b|\bwith\b)\s*(?:or\s+|and\s+)?"
                       r"(?:[\w-]+\s+){0,2}?\s*"
                       # "FIFO is simple; priority queues let ...; fair share gives ...": a list of clauses
                       r"|[^;]{0,80};\s*(?:or\s+|and\s+)?(?:[\w-]+\s+){0,2}?\s*", re.I)


def _enumerated(sentence: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of names listed one after another: "FIFO, strict priority, quotas or DRF" is
    a list; "fair share across teams, weight = funded quota, with priority classes inside" is one
    rule with its parts."""
    best: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for n in names:
        if run and not _LIST_GAP.fullmatch(sentence, run[-1][1], n[0]):
            run = []
        run.append(n)
        if len(run) > len(best):
            best = list(run)
    return best


def _offers_options(p: Pitfall, text: str) -> bool:
    """Does an answer offer options of its own: a menu, two policy names, or a line led by "or"?"""
    _deferred, starts, menu = _scan(p, text)
    return menu or len(starts) >= 2 or any(_OR_LEAD.match(m.group(0)) for m in _SENTENCE.finditer(text))


def _or_parts(sentence: str, names: list[tuple[int, int]], least: int) -> list[tuple[int, int]]:
    """Options described at length, one a comma-separated part, the last led by "or": "Weighted fair share on
    GPU-hours, strict priority classes with inference on top, per-team quotas with borrowing, or DRF if ..."."""
    cuts = [0, *(m.end() for m in _PART_CUT.finditer(sentence)), len(sentence) + 1]
    run: list[tuple[int, int]] = []
    for s, e in zip(cuts, cuts[1:]):
        inside = [n for n in names if s <= n[0] < e]
        if not inside:
            run = []
            continue
        run.append(inside[0])
        if len(run) >= least and _OR_LEAD.match(sentence, s):
            return run
    return []


_PART_CUT = re.compile(r"[,;]")
# options set apart by pipes on a line of prose, no table's row: "resume | recompute | checkpoint-restore | KV offload"
_PIPE_MENU = re.compile(r"(?:^|(?<=\n))[ \t]*(?![|\-*•])[^|\n]{2,60}(?:[ \t]\|[ \t][^|\n]{2,60}){2,}(?<![|\s])[ \t]*(?=\n|$)")
_OR_SENTENCES = re.compile(r"(?:^|(?<=[.!?\n]))[ \t]*[^.!?\n]{8,120}[.!?](?:\s+or\s+[^.!?\n]{4,120}[.!?]){2,}", re.I)
_WHICH_DEPENDS = re.compile(r"\s*which\s+(?:one|of\s+(?:them|those|these))\s+(?:depends|would\s+depend|is\s+(?:up\s+to|"
                            r"a\s+product\s+decision))\b", re.I)
# (the heading itself a bullet, or counted: "- feat: a few ways to go:\n  - drain now ...\n  - wait for ...")
# three bullet or numbered lines or more, each an option
_BULLET_LINES = r"(?:[ \t]*(?:[-*•]|\d+[.)])[ \t]+[^\n]+(?:\n|$)){3,}"
_BULLETED_MENU = re.compile(r"(?:^|\n)[ \t]*(?:[-*•][ \t]+)?(?:[a-z]+:[ \t]+)?(?:(?:a\s+few|several|some|two|three|four)\s+)?"
                            r"(?:[\w-]+\s+)?(?:options|choices|alternatives|fallbacks|ways(?:\s+to\s+go)?|paths|approaches|possibilities)"
                            r"(?:\s+(?:when|if|for|on)\b[^:.\n]{0,40})?"
                            r"\s*:[ \t]*\n" + _BULLET_LINES +
                            # ... or each line its own numbered option: "- Option 1: Triton dynamic batching\n- Option 2: ..."
                            r"|(?:(?:^|\n)[ \t]*(?:[-*•][ \t]+)?option[ \t]+(?:\d|one|two|three|four|[a-e])\b[ \t]*[:.)-][^\n]*){2,}"
                            # ... or said to be many at the end of a line: "graceful degradation, theres a bunch of fallbacks\n- ..."
                            r"|(?:^|\n)[^\n]*?\bthere(?:.s|s|\s+is|\s+are)\s+(?:a\s+bunch\s+of|a\s+few|several|some|lots\s+of|many|a\s+number\s+of)\s+"
                            r"(?:[\w-]+\s+)?(?:options|choices|alternatives|fallbacks|ways|paths|approaches|possibilities)[ \t]*:?[ \t]*\n"
                            + _BULLET_LINES, re.I)
_AS_A_SET = re.compile(r"\b(?:either|both|any|all|each|every|two|three|four)\b", re.I)
# a question that offers options: "Do you resume from cached state or recompute the prompt?"
_OR_QUESTION = re.compile(r"\bor\b[^.?!]{0,120}\?", re.I)

_PITFALLS: dict[str, Pitfall] = {}


def _scan(p: Pitfall, text: str) -> tuple[bool, tuple[int, ...], bool]:
    """One answer read once per pitfall: deferred?, where policy names start, a menu marker?"""
    _unions(p)  # registers p for the caches below, which are keyed by id: a Pitfall is not hashable
    return _turn_scan(p.id, text)


@functools.lru_cache(maxsize=4096)
def _turn_scan(pid: str, text: str) -> tuple[bool, tuple[int, ...], bool]:
    p = _PITFALLS[pid]
    _deferral, _menu, names = _unions(p)
    low, folded = text.lower(), folds(text)
    # the opener needs one of its nouns: without any, no sentence can open a menu
    opener = (may_match(_OPENER_NOUN_NEEDS, low, folded) and _OPENER_NOUN.search(text) is not None
              or "|" in text) and any(
        may_match(_OPENER_NEEDS, sm.group(0).lower(), folded) and _MENU_OPENER.search(sm.group(0))
        for sm in _SENTENCE.finditer(text))
    # whether any deferral (or menu) pattern matches: one at a time, each skipped on a substring test
    # where it can, instead of the union tried at every character, and read in the sentences that hold
    # its literals where it cannot cross a sentence's end
    deferral, menu, (names_need, names_reach) = _needs(pid, id(p))
    sentences = Sentences(text, low)
    return (any(may_match(need, low, folded) and sentences.search(pat, reach, need) for pat, need, reach in deferral),
            tuple(m.start() for m in sentences.finditer(names, names_reach, names_need))
            if names and may_match(names_need, low, folded) else (),
            any(may_match(need, low, folded) and sentences.search(pat, reach, need) for pat, need, reach in menu)
            or opener)


@functools.lru_cache(maxsize=64)
def _clearing(pid: str, ident: int) -> tuple:
    """A pitfall's cleared_by patterns, each with its needed literals and sentence reach (keyed like
    _unions_of; the pitfall is registered by _unions)."""
    return tuple((pat, needed_literals(pat), sentence_reach(pat)) for pat in _PITFALLS[pid].cleared_by)


@functools.lru_cache(maxsize=64)
def _needs(pid: str, ident: int) -> tuple[tuple, tuple, tuple]:
    """A pitfall's deferral and menu patterns, each with its needed literals and sentence reach, and
    the literals one of which any policy name holds with the names' reach (keyed like _unions_of)."""
    p = _PITFALLS[pid]
    names = _unions_of(pid, ident)[2]
    return (tuple((pat, needed_literals(pat), sentence_reach(pat)) for pat in p.deferral),
            tuple((pat, needed_literals(pat), sentence_reach(pat)) for pat in p.menu),
            (needed_literals(names), sentence_reach(names)) if names is not None else (None, None))


def _unions(p: Pitfall) -> tuple[re.Pattern | None, re.Pattern | None, re.Pattern | None]:
    """A pitfall's deferral, menu and policy-name patterns, each list as one pattern (any of them, in
    one pass)."""
    _PITFALLS[p.id] = p
    return _unions_of(p.id, id(p))


@functools.lru_cache(maxsize=64)
def _unions_of(pid: str, ident: int) -> tuple[re.Pattern | None, re.Pattern | None, re.Pattern | None]:
    # keyed by the loaded pitfall too: another rubric's policy_list has its own patterns
    p = _PITFALLS[pid]
    return any_of(p.deferral, re.I), any_of(p.menu, re.I), any_of(p.names, re.I)


# the options taken together as equally good: "any of these could work", "all of them would do"
_ANY_OF_THEM = re.compile(r"\b(?:any|all|each|either)\s+(?:one\s+)?of\s+(?:these|those|them|the\s+above)\s+(?:could|would|can|will|might)"
                          r"\s+(?:work|do|be\s+fine)\b|\bany\s+of\s+(?:these|those|them)\s+(?:is|are|would\s+be)\s+fine\b", re.I)
# a list taken as a whole after it is named: "..., load shedding - the engine supports all of them"
_ALL_OF_THEM = re.compile(r"\ball\s+(?:of\s+)?(?:them|these|those|three|four|five)\b", re.I)


def _policy_list(ev: Evidence, p: Pitfall, since: int = 0) -> bool:
    """Raise `p` at the first list of policies left open in the candidate's answers from turn
    `since` on; True when raised."""
    if p.id in ev.pitfalls:
        return False
    for turn in sorted(t for t in ev.texts if t >= since):
        text = ev.texts[turn]
        deferred, starts, menu_in_turn = _scan(p, text)
        asked = ev.asked_before(turn)
        nxt = min((t for t in ev.texts if t > turn), default=None)
        deferred_next = nxt is not None and _scan(p, ev.texts[nxt])[0]
        # options one a bullet under a heading, then left open below them: "Options:\n- restart the process\n- reschedule
        # the pod\n- fail over to the other region\nDepends on the incident. IC picks at the time."
        laid_out = _BULLETED_MENU.search(text) if deferred and "\n" in text else None
        if laid_out is None and deferred:
            # ... or one a sentence, each after the first opening on "Or": "Periodically snapshot the map and truncate the
            # log. Or use an LSM tree. Or just rotate log files. Any of those works"
            laid_out = _OR_SENTENCES.search(text)
        pipes = _PIPE_MENU.search(text) if deferred and " | " in text else None
        if laid_out is None and pipes is not None and _deferral_in(p, pipes.group(0)):
            laid_out = pipes  # "resume | recompute | checkpoint-restore | KV offload → depends."
        # (the deferral may be the list's last line: "- chore: which one depends on the job ... configurable per tenant")
        last_line = laid_out.start() + laid_out.group(0).rstrip().rfind("\n") + 1 if laid_out else 0
        if laid_out and (laid_out is pipes or _deferral_in(p, text[last_line:])):
            start = laid_out.start() + (len(laid_out.group(0)) - len(laid_out.group(0).lstrip()))
            ev.pitfalls[p.id] = Hit(p.id, turn, start, laid_out.end(), quote_around(text, start, laid_out.end()))
            # (bullets that are scheduling policies are a list of names, answered only by one of them)
            ev.pitfall_kinds[p.id] = "names" if len(_names_in(laid_out.group(0), p)) >= p.min_names else "menu"
            return True
        if len(starts) < 2 and not ((deferred or deferred_next) and menu_in_turn) \
                and not ((menu_in_turn or deferred) and _opens_menu(text)) and not _four_offered(text) \
                and not (deferred and asked is not None and (_OR_QUESTION.search(ev.context[asked])
                                                             or _asks_for_one(p, ev.context[asked]))):
            continue  # fewer than two policy names and no menu left open or opened: nothing to find in this answer
        prev_sm = listed = None
        for sm in _SENTENCE.finditer(text):
            sentence = sm.group(0)
            before, prev_sm = prev_sm, sm
            # (a list with an "or", or four and more items: "Preemption, swapping, recompute, priority scheduling,
            # admission control. vLLM has all of those. We'd pick based on the workload.")
            if before is not None:
                commas, ors = before.group(0).count(","), len(_OR.findall(before.group(0)))
                if commas >= 3 or (ors and commas + ors >= 3):
                    listed = before  # the latest list of options in this answer, however many sentences back
            # most sentences name fewer than two policies: only those that do are read closely
            many = sum(1 for x in starts if sm.start() <= x < sm.end()) >= 2
            found = _names_in(sentence, p) if many else []
            names = _enumerated(sentence, found)
            if many and len(names) < p.min_names:
                names = max(names, _or_parts(sentence, found, p.min_names), key=len)
            if len(names) >= 2:
                start = sm.start() + names[0][0]
                # "you could do FIFO, you could do priority queues, ...": the menu's "could" is no hypothetical
                menu = any(m.search(sentence) for m in p.menu) and len(names) >= p.min_names
                # (one option qualified by an "if" leaves the others offered: "Dominant resource fairness if we treat CPU
                # and memory as resources too; weighted fair share by team; ... or hard per-team quotas")
                if negated_at(text, start) or (all(hypothetical_at(text, sm.start() + a) for a, _b in names) and not menu):
                    continue
                # two names and an "or" that runs on to another option ("priority queues, fair-share, preemption,
                # or SLO-aware scheduling, depending on the tenant"), beside a deferral
                between = sentence[names[0][0]:]
                joined = len(names) >= p.min_names or (_OR.search(between) and deferred)
                # parts of one plan said with a commitment and no "or": "I'd build quotas and the serving
                # priority class first, and defer fair-share lending"
                planned = not deferred and not _OR.search(sentence, names[0][0], names[-1][1]) \
                    and _COMMITTED.search(sentence, 0, names[0][0]) is not None
                # asked for one, the answer opens on it: "Pick one fairness rule." - "Weighted fair share over GPUs with
                # guaranteed quotas, and three priority classes: P0 serving, ..." (one rule and its parts)
                # (not a sentence naming four or more: "Fairness is layered: DRF, weighted fair share, hierarchical quotas,
                # priority classes, ... plus preemption and backfill" is every rule at once)
                picked = not deferred and before is None and len(names) <= 3 \
                    and _OPENS_ON_IT.fullmatch(sentence, 0, names[0][0]) is not None \
                    and asked is not None \
                    and _asks_for_one(p, ev.context[asked]) and not any(m.search(sentence) for m in p.menu) \
                    and _QUALIFIES.fullmatch(sentence, names[0][1], names[1][0]) is not None
                if joined and not planned and not picked:
                    ev.pitfalls[p.id] = Hit(p.id, turn, start, sm.start() + names[-1][1],
                                            quote_around(text, start, sm.start() + names[-1][1]))
                    ev.pitfall_kinds[p.id] = "names"
                    return True
            # a menu opened in so many words and never closed: "There are several good strategies here: preemption,
            # swapping to CPU, recomputation, priority queues, or admission control" (a choice later withdraws it)
            opened = _opens_menu(sentence) and (
                len(_OR.findall(sentence)) >= 1 and sentence.count(",") + len(_OR.findall(sentence)) >= 4
                # "Circuit breakers, hedged requests, fallbacks, caching, bulkheads; the standard resilience toolkit"
                or _TOOLKIT.search(sentence) is not None and sentence.count(",") >= 3) \
                or _four_offered(sentence)
            # ("Could drain now, could wait for the checkpoint, could live-migrate. Depends on the job.": no "or")
            # ... nor "Preemption, swapping to CPU, recompute, admission control - the engine supports all of them")
            joined_up = len(_OR.findall(sentence)) >= 1 or _COULD_CHAIN.search(sentence) is not None \
                or (sentence.count(",") >= 3 and _ALL_OF_THEM.search(sentence) is not None)
            if opened or (deferred and any(m.search(sentence) for m in p.menu) and joined_up
                          and sentence.count(",") + sentence.count(";") + len(_OR.findall(sentence)) >= 2):
                start = sm.start() + (len(sentence) - len(sentence.lstrip()))
                ev.pitfalls[p.id] = Hit(p.id, turn, start, sm.end(), quote_around(text, start, sm.end()))
                ev.pitfall_kinds[p.id] = "menu"
                return True
            # options named one a sentence, then left open as a set: "The simplest is round robin ... There's power of
            # two choices ... I think any of these could work and it would depend on the traffic"
            if deferred and len(starts) >= p.min_names and menu_in_turn and _ANY_OF_THEM.search(sentence) \
                    and _deferral_in(p, sentence):
                start = sm.start() + (len(sentence) - len(sentence.lstrip()))
                ev.pitfalls[p.id] = Hit(p.id, turn, start, sm.end(), quote_around(text, start, sm.end()))
                ev.pitfall_kinds[p.id] = "menu"
                return True
            # the options listed, then left open as a set in a later sentence: "Dynamic batching, micro-batching or
            # request coalescing, or CPU fallback. Triton supports all of them ..., so we'd tune per model."
            # (the deferral in this sentence, or the next: "vLLM has all of those. We'd pick based on the workload.")
            # ... or the list of two policies or more, then which of it left open: "Preemption with swap or recompute,
            # priority scheduling, fair queuing, admission control, backpressure to the gateway. Which one depends on the SLO
            # tier." (not after levers of a trade-off, no policy among them: "fewer candidates, a smaller ranker at peak, or
            # accepting emptier batches. Which one depends on what the business cares about")
            # (a list, not a sentence that only runs on with commas: "Option one is a cloud VM with a network block volume -
            # cheap, maybe $300 a month, but fsync there is a network round trip, call it 1 to 2 milliseconds.")
            if listed is not None and deferred \
                    and (_OR.search(listed.group(0)) or len(_names_in(listed.group(0), p)) >= 2
                         or listed.group(0).count(",") >= 4) \
                    and (any(m.search(sentence) for m in p.menu) or (len(starts) >= 2 and _WHICH_DEPENDS.match(sentence))) \
                    and (_deferral_in(p, sentence) or _deferral_in(p, text[sm.end():sm.end() + 200].split(".")[0])):
                start = listed.start() + (len(listed.group(0)) - len(listed.group(0).lstrip()))
                ev.pitfalls[p.id] = Hit(p.id, turn, start, listed.end(), quote_around(text, start, listed.end()))
                ev.pitfall_kinds[p.id] = "menu"
                return True
        # asked for one ("Pick one fairness rule. Not a menu, one."), the answer names them all and
        # combines or defers: "I'd combine them: weighted fair share for ..., priority classes for ..."
        # (names, not mentions: "Per-team quotas, with idle quota lendable ... inside its own quota" is one rule said thrice)
        if deferred and len(starts) >= p.min_names and asked is not None \
                and _asks_for_one(p, ev.context[asked]) and len(_names_in(text, p)) >= 2:
            s0, e0 = starts[0], starts[-1]
            ev.pitfalls[p.id] = Hit(p.id, turn, s0, e0, quote_around(text, s0, e0))
            ev.pitfall_kinds[p.id] = "names"
            return True
        # names said one sentence at a time and left to "it depends" in the same answer: "Round-robin is
        # ... Least-connections ... Power of two choices ... Prefix-hash affinity ... Each has trade-offs,
        # it really depends on the traffic pattern" - or in the answer to "which one?" that follows a list
        # of bullets ("- FIFO / - priority classes / - quotas ..." then "Honestly it depends ... a hybrid")
        asked_next = deferred_next and _asks_for_one(p, ev.context.get(max(
            (i for i in ev.context if turn < i < nxt), default=-1), ""))
        if (deferred or asked_next) and len(starts) >= p.min_names and len(_names_in(text, p)) >= p.min_names:
            s0 = starts[0]
            e0 = max((m.end() for m in _SENTENCE.finditer(text) if _deferral_in(p, m.group(0))), default=len(text))
            e0 = max(e0, starts[-1] + 1)
            ev.pitfalls[p.id] = Hit(p.id, turn, s0, e0, quote_around(text, s0, min(e0, s0 + 200)))
            ev.pitfall_kinds[p.id] = "names"
            return True
        # a menu spread over sentences: "There are a few approaches. FIFO ... Strict priority ...",
        # "We could fsync every put. Or group commit. Or a timer." - then left open in the same answer
        # or the next ("It really depends on the org ... I'd make the policy pluggable")
        if deferred or deferred_next:
            sentences = list(_SENTENCE.finditer(text))
            opener = next((sm for sm in sentences if _opens_menu(sm.group(0))), None)
            ors = [sm for sm in sentences if _OR_LEAD.match(sm.group(0))]
            if opener is None and len(ors) >= 2:
                opener = next((sm for sm in sentences if sm.end() <= ors[0].start() and p.menu[0].search(sm.group(0))),
                              ors[0])
            if opener is not None and (len(ors) >= 2 or _opens_menu(opener.group(0))):
                start = opener.start() + (len(opener.group(0)) - len(opener.group(0).lstrip()))
                # through the deferral said in this answer, else through the whole answer
                ends = [sm.end() for sm in sentences if any(d.search(sm.group(0)) for d in p.deferral)]
                end = max(max(ends), ors[-1].end() if ors else opener.end()) if ends else sentences[-1].end()
                ev.pitfalls[p.id] = Hit(p.id, turn, start, end, quote_around(text, start, opener.end()))
                # scheduling policies named one after another are a list of names; other options a menu
                ev.pitfall_kinds[p.id] = "names" if len(_names_in(text[start:end], p)) >= p.min_names else "menu"
                return True
        # asked to choose between options ("Resume from cached state or recompute the prompt?", "Which one, swap or
        # recompute?"), the answer declines the options as a set ("Both are valid.", "Either works", "I'd build all
        # three and choose per incident"); an "it depends" alone may go on to a rule, and a hand-off ("leave that to
        # the job owner", "roll it out behind a feature flag") may follow a choice, so neither counts here
        if deferred and asked is not None and (_asks_for_one(p, ev.context[asked]) or _OR_QUESTION.search(ev.context[asked])):
            declined = next((m for m in _unions(p)[0].finditer(text)
                             if "depend" not in m.group(0).lower() and _AS_A_SET.search(m.group(0))), None)
            if declined is not None and not negated_at(text, declined.start()):
                s0 = _sentence_start(text, declined.start())
                s0 += len(text[s0:]) - len(text[s0:].lstrip())
                e0 = _sentence_end(text, declined.start())
                ev.pitfalls[p.id] = Hit(p.id, turn, s0, e0, quote_around(text, s0, e0))
                ev.pitfall_kinds[p.id] = "menu"
                return True
    return False


# "There are a few well-known approaches", "A few options, each with trade-offs:", "The options are"
_NOUNS = r"(?:options|approaches|ways|paths|routes|avenues|choices|strategies|policies|possibilities|alternatives|answers|fallbacks|patterns|techniques|toolbox|toolkit|controls|mechanisms|tactics|models|schemes|designs|(?:serious|viable|possible|strong|obvious)\s+candidates)\b"
# "We'd use the standard toolkit there", "the standard resilience toolkit"
_TOOLKIT_WORDS = r"\b(?:standard|usual|whole|common)\s+(?:[\w-]+\s+)?(?:toolkit|toolbox)\b"
# options numbered one a line ("Option one:", "option B)")
# ... or one a line with no number: "-> option: restart from scratch", "-> option: just show an error"
_NUMBERED_OPTION = r"option(?:\s+(?:one|two|three|four|five|[1-5]|[a-e])\b|(?=\s*:))"
_MENU_OPENER = re.compile(
    r"\bthere(?:\s+are|'s|\s+is)\s+(?:a\s+few|several|many|lots\s+of|a\s+lot\s+of|a\s+number\s+of|multiple|a\s+bunch\s+of|"
    r"a\s+couple\s+of|some|\w+)\s+(?:[\w-]+\s+){0,2}?" + _NOUNS +
    r"|^\W*(?:a\s+few|several|many|multiple|some|(?:a\s+)?couple(?:\s+of)?|two|three|four|five|\d+)\s+(?:[\w-]+\s+){0,2}?" + _NOUNS +
    r"|\b(?:the|my|our)\s+(?:\w+\s+)?(?:options|choices|alternatives)\s+(?:are|include|as\s+i\s+see\s+(?:them|it))\b"
    # "For batching there are options: we could batch per request, or ..."
    r"|\bthere\s+are\s+(?:(?:a\s+few|several|many|multiple|some|various)\s+)?(?:options|choices|alternatives|approaches|ways)\s*:"
    # "there's a menu of controls: load shedding, priority queues, ..."
    r"|\ba\s+menu\s+of\s+(?:[\w-]+\s+){0,2}?" + _NOUNS +
    # "There's a design space. Continuous batching as in Orca; chunked prefill ...; and speculative decoding"
    r"|\bthere(?:'s|\s+is)\s+a\s+(?:whole\s+|big\s+|large\s+|wide\s+)?design\s+space\b"
    # "It's genuinely hard to pick one without knowing the org"
    r"|\b(?:hard|difficult|tough|impossible)\s+to\s+(?:pick|choose)\s+(?:just\s+)?(?:one|a\s+single\s+\w+)\b"
    # numbered options, one a line: "- Option one: drain now ...", "- Option two: wait for the checkpoint"
    r"|^\W*" + _NUMBERED_OPTION + r"\s*[:.)—–-]"
    # a heading over the options: "Options: resume, recompute, ...", "restart options:" above bullets
    r"|^\W*(?:[\w-]+\s+)?(?:options|choices|alternatives|fallbacks)(?:\s+(?:when|if|for|on)\b[^:.\n]{0,40})?\s*:"
    # a heading over a table of options, alone on its line: "## 3. Restart options"
    r"|^[\s#]*(?:\d+[.)]\s*)?(?:[\w-]+\s+)?(?:options|choices|alternatives|fallbacks)\s*$"
    # "We'd use the standard toolkit there: preemption, swapping, recompute, ..."
    r"|\b(?:the\s+)?" + _TOOLKIT_WORDS +
    # a list tagged as options after it: "cached recs, popular items, a lighter model, or default features - lots of options"
    r"|[—–-]\s*(?:lots\s+of|plenty\s+of|many|several|a\s+(?:bunch|lot)\s+of)\s+(?:options|choices|alternatives)\b"
    # a table of options: "| path | cost | catch |" over one row per option
    r"|^\s*\|\s*(?:path|option|approach|mode|strategy|choice|alternative|fallback|policy)s?\s*\|"
    # options counted out: "There's also a third path: treat the streamed tokens as the prompt"
    r"|\bthere(?:'s|\s+is)\s+(?:also\s+)?a\s+(?:third|fourth|fifth)\s+(?:path|option|way|approach|choice|alternative)\b",
    re.I | re.M)
_TOOLKIT = re.compile(_TOOLKIT_WORDS, re.I)
_COMMITTED = re.compile(r"\b(?:i|we)(?:.d|\s+would|.ll|\s+will)\s+(?:\w+\s+){0,2}?(?:build|use|run|ship|implement|enforce|"
                        r"put|deploy|start\s+with|go\s+with)\b", re.I)
_OR_LEAD = re.compile(r"\s*(?:(?:[-*+•]|-{1,2}>|={1,2}>|[→⇒])\s+)?or\b", re.I)  # ("-> or DRF for multi-resource": a bullet too)
# four options or more offered in one sentence, an "or" before each: "If not, we could batch, or use a faster disk, or
# a battery-backed cache, or replicate instead."
_WE_COULD = re.compile(r"\b(?:we|you|one)\s+could\b", re.I)


def _four_offered(text: str) -> bool:
    """Does a sentence of `text` offer four options or more, "we could" and an "or" before each of the last three?"""
    return _WE_COULD.search(text) is not None and any(
        _WE_COULD.search(sm.group(0)) and len(_OR.findall(sm.group(0))) >= 3 for sm in _SENTENCE.finditer(text))

# options said one "could" after another
_COULD_CHAIN = re.compile(r"\bcould\s+(?!be\b)\w+[^.;]{0,60}?,\s*(?:we\s+|you\s+)?could\s+\w+", re.I)
# every branch of the opener ends in one of these, or numbers its options
_OPENER_NOUN = guarded(re.compile(_NOUNS + r"|\b" + _NUMBERED_OPTION, re.I))
_OPENER_NOUN_NEEDS = needed_literals(_OPENER_NOUN)  # (a substring test first: most answers name none)
_OPENER_NEEDS = needed_literals(_MENU_OPENER)


def _opens_menu(text: str) -> bool:
    """Does `text` open a menu of options (_MENU_OPENER)? Skipped on a substring test where it holds
    none of the opener's literals."""
    return may_match(_OPENER_NEEDS, text.lower(), folds(text)) and _MENU_OPENER.search(text) is not None
