"""The retrieval corpus: source-note passages plus one record per bank question and company.

corpus/notes/*.md are Markdown with YAML front matter (id, title, source, source_detail, topics)
and `## ` sections; each section is one passage with doc_id "<note-id>#<section-slug>". The bank
(corpus/questions.yaml, corpus/companies.yaml, see interviewer.bank) adds "question:<id>" and
"company:<slug>" records. Every record carries a content hash, so ingest re-embeds only what
changed.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from interviewer.bank import CORPUS_DIR, Bank, Company, Question, read_bank
from interviewer.errors import UserError
from interviewer.rubric import load_rubric

RECORD_SCHEMA = 1  # bump when the record text layout changes: every record is re-embedded

@dataclass(frozen=True)
class Record:
    """One retrievable chunk."""

    doc_id: str
    title: str
    source: str
    text: str
    topics: tuple[str, ...] = ()
    kind: str = "note"  # note | question | company
    path: str = ""  # corpus-relative file the record came from
    source_detail: str = ""
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def embed_text(self) -> str:
        """What gets embedded: the title carries the key terms of a section."""
        return f"{self.title}\n{self.text}"

    @property
    def content_hash(self) -> str:
        payload = json.dumps([RECORD_SCHEMA, self.doc_id, self.title, self.source, self.text,
                              list(self.topics), self.kind, self.path, self.source_detail],
                             ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32]

    def metadata(self) -> dict:
        """Chroma metadata (lists must be non-empty, so empty topics are left out)."""
        meta = {"title": self.title, "source": self.source, "kind": self.kind, "path": self.path,
                "content_hash": self.content_hash}
        if self.source_detail:
            meta["source_detail"] = self.source_detail
        if self.topics:
            meta["topics"] = list(self.topics)
        return meta


def slugify(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "section"


# ---------------------------------------------------------------------------------------------
# Notes
# ---------------------------------------------------------------------------------------------

def _front_matter(path: Path, text: str) -> tuple[dict, list[str], int]:
    """Split a note into (front matter, body lines, line number of the first body line)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise UserError(f"{path}: line 1: expected YAML front matter starting with '---'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise UserError(f"{path}: line 1: YAML front matter is not closed by a '---' line"
                        ) from None
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2  # +1 for the opening ---, +1 for 1-based
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise UserError(f"{path}: line {line}: broken YAML front matter: {problem}") from None
    if not isinstance(meta, dict):
        raise UserError(f"{path}: line 2: YAML front matter must be a mapping of keys")
    return meta, lines[end + 1:], end + 2


def _require_str(path: Path, meta: dict, key: str) -> str:
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        raise UserError(f"{path}: front matter needs a non-empty '{key}'")
    return value.strip()


def parse_note(path: Path, corpus_dir: Path = CORPUS_DIR) -> list[Record]:
    """One record per `## ` section (text before the first section becomes '#intro')."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None
    meta, body, _ = _front_matter(path, text)
    note_id = _require_str(path, meta, "id")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", note_id):
        raise UserError(f"{path}: note id {note_id!r} may use only letters, digits, '.', '_', '-'")
    title = _require_str(path, meta, "title")
    source = _require_str(path, meta, "source")
    detail = meta.get("source_detail") or ""
    topics = meta.get("topics") or []
    if isinstance(topics, str):
        topics = [topics]
    if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
        raise UserError(f"{path}: front matter 'topics' must be a list of rubric criterion ids")
    try:
        rel = str(path.resolve().relative_to(corpus_dir.resolve()))
    except ValueError:
        rel = path.name

    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in body:
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif line.startswith("# ") and not sections[-1][1] and not sections[-1][0]:
            continue  # a document H1 repeating the title
        else:
            sections[-1][1].append(line)

    records: list[Record] = []
    seen: dict[str, int] = {}
    for heading, content in sections:
        passage = "\n".join(content).strip()
        if not passage:
            continue
        slug = slugify(heading) if heading else "intro"
        seen[slug] = seen.get(slug, 0) + 1
        if seen[slug] > 1:
            slug = f"{slug}-{seen[slug]}"
        records.append(Record(
            doc_id=f"{note_id}#{slug}",
            title=f"{title}: {heading}" if heading else title,
            source=source,
            text=passage,
            topics=tuple(dict.fromkeys(t.strip() for t in topics if t.strip())),
            kind="note",
            path=rel,
            source_detail=str(detail).strip(),
        ))
    return records


def note_files(corpus_dir: Path = CORPUS_DIR) -> list[Path]:
    return sorted((corpus_dir / "notes").glob("*.md"))


def load_notes(corpus_dir: Path = CORPUS_DIR) -> list[Record]:
    records: list[Record] = []
    owner: dict[str, Path] = {}
    for path in note_files(corpus_dir):
        recs = parse_note(path, corpus_dir)
        if recs:
            note_id = recs[0].doc_id.split("#", 1)[0]
            if note_id in owner:
                raise UserError(f"{path}: note id {note_id!r} is already used by {owner[note_id]}")
            owner[note_id] = path
        records.extend(recs)
    return records


# ---------------------------------------------------------------------------------------------
# Bank
# ---------------------------------------------------------------------------------------------

def _bullets(items) -> str:
    return "\n".join(f"- {i}" for i in items)


def question_record(q: Question) -> Record:
    parts = [f"{q.title}. Asked at: {', '.join(q.companies) or 'n/a'}. Format: {q.format}."]
    if q.rounds:
        parts.append(f"Rounds: {', '.join(q.rounds)}.")
    if q.last_reported:
        parts.append(f"Last reported {q.last_reported}.")
    if q.writeups is not None:
        parts.append(f"{q.writeups} candidate write-ups.")
    lines = [" ".join(parts), "", q.summary.strip()]
    if q.opening_prompt.strip():
        lines += ["", f"Opening prompt: {q.opening_prompt.strip()}"]
    if q.prepare:
        lines += ["", "What to prepare:", _bullets(q.prepare)]
    if q.follow_ups:
        lines += ["", "Follow-ups:", _bullets(f.text for f in q.follow_ups)]
    fam = load_rubric().families.get(q.family)
    topics = list(fam.topics if fam else ())
    topics += [f.probes for f in q.follow_ups]
    return Record(
        doc_id=f"question:{q.id}",
        title=f"Question: {q.title}",
        source="; ".join(q.sources) or "Question bank",
        text="\n".join(lines).strip(),
        topics=tuple(t for t in dict.fromkeys(topics) if t in load_rubric().criteria),
        kind="question",
        path="questions.yaml",
    )


def company_record(c: Company, bank: Bank) -> Record:
    head = f"{c.name}"
    if c.inference_questions is not None:
        head += f": {c.inference_questions} reported inference and serving questions"
    lines = [head + "."]
    if c.format_mix:
        mix = ", ".join(f"{fmt} {n}" for fmt, n in c.format_mix.items())
        lines.append(f"Format mix: {mix}.")
    asked = [q.title for q in bank.questions if c.name in q.companies]
    if asked:
        lines.append(f"Questions reported: {'; '.join(asked)}.")
    if c.notes.strip():
        lines += ["", c.notes.strip()]
    if c.follow_ups:
        lines += ["", "Follow-ups this company's interviewers push on:",
                  _bullets(f.text for f in c.follow_ups)]
    topics = [f.probes for f in c.follow_ups]
    return Record(
        doc_id=f"company:{slugify(c.name)}",
        title=f"Company: {c.name} interview rounds",
        source="; ".join(c.sources) or "Question bank",
        text="\n".join(lines).strip(),
        topics=tuple(t for t in dict.fromkeys(topics) if t in load_rubric().criteria),
        kind="company",
        path="companies.yaml",
    )


def load_bank_records(corpus_dir: Path = CORPUS_DIR) -> list[Record]:
    bank = read_bank(Path(corpus_dir))  # uncached: ingest must see edits in this process
    return ([question_record(q) for q in bank.questions]
            + [company_record(c, bank) for c in bank.companies])


def load_records(corpus_dir: Path | None = None) -> list[Record]:
    """Every record of the corpus, in a stable order; raises UserError on a broken file."""
    corpus_dir = Path(corpus_dir) if corpus_dir is not None else CORPUS_DIR
    if not corpus_dir.is_dir():
        raise UserError(f"corpus folder not found: {corpus_dir}")
    records = load_notes(corpus_dir) + load_bank_records(corpus_dir)
    ids: dict[str, Record] = {}
    for r in records:
        if r.doc_id in ids:
            raise UserError(f"{corpus_dir / r.path}: duplicate passage id {r.doc_id!r}")
        ids[r.doc_id] = r
    return records


def corpus_fingerprint(corpus_dir: Path | None = None) -> str:
    """Cheap change detector (names, sizes, mtimes) for deciding whether to re-ingest."""
    corpus_dir = Path(corpus_dir) if corpus_dir is not None else CORPUS_DIR
    h = hashlib.sha256()
    paths = note_files(corpus_dir) + [corpus_dir / "questions.yaml", corpus_dir / "companies.yaml"]
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            h.update(f"{p.name}:missing;".encode())
            continue
        h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:32]
