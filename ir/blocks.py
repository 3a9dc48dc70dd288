"""Blocks of a page for the feedback store: segments of a segmenter, or fixed text windows.

Sources (``SOURCES``): ``vips`` (PDoC 0.6, the finest VIPS blocks, as in the paper's PRF
experiment), ``dom``, ``gcuts``, ``wps`` (``wps-margin``), ``pagelevel`` (only the segments
PageLevel scores as non-template, templateness < 0.5) and ``windows`` (consecutive 50-word
windows over the page text, a passage-retrieval baseline that needs no layout). Any other
registered segmenter name is accepted too (its finest segments become blocks).

Blocks are stored in geometry rank order (top edge, then left edge of the segment box).
"""

from __future__ import annotations

from itertools import accumulate, chain, repeat
from typing import Any

from ir.analysis import Analyzer, term_counts
from ir.store import Block
from webseg.lang import has_unspaced_letter

__all__ = ["SOURCES", "page_blocks", "page_parts", "page_text", "page_words", "part_sizes",
           "segmentation_blocks", "shown_leaves", "shown_parts", "spaced", "window_blocks",
           "word_weights"]

#: source name -> (registered segmenter, its parameters); ``windows`` needs no segmenter.
SOURCES: dict[str, tuple[str, dict[str, Any]] | None] = {
    "vips": ("vips", {"pdoc": 0.6}),
    "dom": ("dom", {}),
    "gcuts": ("gcuts", {}),
    "wps": ("wps-margin", {}),
    "pagelevel": ("pagelevel", {}),
    "windows": None,
}

WINDOW_WORDS = 50


def _terms(an: Analyzer, text: str) -> dict[str, int]:
    return term_counts(an.tokens(text))


#: Characters of an unspaced script (Chinese, Japanese, Thai...) that count as one word when
#: cutting windows: a Chinese word is about two characters long.
UNSPACED_CHARS_PER_WORD = 2


def _units(words: list[str]) -> list[tuple[str, int]]:
    """(piece, index of its whitespace word): a whitespace word, or a piece of one written in
    an unspaced script, where a whole sentence has no space and would be one "word"."""
    out: list[tuple[str, int]] = []
    k = UNSPACED_CHARS_PER_WORD
    for i, w in enumerate(words):
        if len(w) <= k or w.isascii() or not has_unspaced_letter(w):
            out.append((w, i))
        else:
            out.extend((w[j:j + k], i) for j in range(0, len(w), k))
    return out


def spaced(text: str) -> bool:
    """Whether ``text``'s windows are made of whole whitespace words (no letter of an
    unspaced script in it)."""
    return not has_unspaced_letter(text)


def window_blocks(text: str, an: Analyzer, size: int = WINDOW_WORDS,
                  word_weights: list[float] | None = None,
                  text_tokens: list[str] | None = None,
                  pieces: list[str] | None = None,
                  whole_words: bool | None = None,
                  piece_tokens: list[list[str]] | None = None,
                  piece_sizes: list[int] | None = None) -> list[Block]:
    """Consecutive, non-overlapping ``size``-word windows of ``text`` (the last may be shorter).

    A word is a whitespace word, except in unspaced scripts, where every
    :data:`UNSPACED_CHARS_PER_WORD` characters count as one (else a Chinese page would be one
    window). ``word_weights`` (one per whitespace word: P(main) of the word's text leaf) sets
    each window's ``weight`` to their mean and its ``role`` (main when >= 0.5).

    ``text_tokens``: when given (an empty list) and the windows are whole words (spaced
    text), it receives ``an.tokens(text)``, the windows' tokens in order: no token crosses a
    space, so the caller need not analyse the whole text a second time. It stays empty for
    unspaced text (a word cut between two windows loses a bigram there).

    ``pieces``: the texts ``text`` was made of (``text == " ".join(pieces)``, each piece
    whitespace-normalised: a page's leaf texts), when at hand: a window's tokens are then
    its pieces' tokens (which a page's :class:`~ir.pipeline.PageTokens` has seen already),
    the same terms because no token crosses a space.

    ``whole_words``: :func:`spaced` of ``text`` when the caller has it already;
    ``piece_tokens``: the tokens of each of ``pieces``, when the caller has them already;
    ``piece_sizes``: :func:`part_sizes` of ``pieces`` (none of them empty), likewise.
    """
    words = text.split()
    if word_weights is not None and len(word_weights) != len(words):
        raise ValueError("word_weights must have one weight per word")
    # spaced text (nearly all): whitespace words, as always; unspaced scripts: pieces
    if whole_words is None:
        whole_words = spaced(text)
    if whole_words and pieces is not None and piece_tokens is not None:
        spans = _spans(pieces, len(words), piece_sizes)
        if spans is not None:  # a page's windows (nearly every page): from its leaves
            return _piece_windows(an, words, pieces, piece_tokens, spans, size,
                                  word_weights, text_tokens)
    units = None if whole_words else _units(words)
    n_units = len(words) if units is None else len(units)
    spans = _spans(pieces, len(words)) if whole_words and pieces is not None else None
    at = 0  # the first span not wholly in earlier windows
    out = []
    for k, i in enumerate(range(0, n_units, size)):
        if units is None:  # whole words (nearly every page): the window is its words
            chunk_words = words[i: i + size]
            t = " ".join(chunk_words)
            n = len(chunk_words)
            ws = None if word_weights is None else word_weights[i: i + n]
        else:
            chunk = units[i: i + size]
            parts = []
            for j, (piece, w) in enumerate(chunk):
                if j and w != chunk[j - 1][1]:
                    parts.append(" ")
                parts.append(piece)
            t = "".join(parts)
            n = len(chunk)
            ws = None if word_weights is None else [word_weights[w] for _, w in chunk]
        if spans is None:
            toks = an.tokens(t)
        else:
            toks, at = _span_tokens(an, spans, at, i, i + n, words, pieces, piece_tokens)
        if text_tokens is not None and whole_words:
            text_tokens.extend(toks)
        blk = Block(text=t, terms=term_counts(toks), seg=k, rank=k)
        if ws is not None:
            blk.weight = round(sum(ws) / len(ws), 4)
            blk.role = "main" if blk.weight >= 0.5 else "template"
        out.append(blk)
    return out


def _piece_windows(an: Analyzer, words: list[str], pieces: list[str],
                   piece_tokens: list[list[str]], spans: list[tuple[int, int, int]],
                   size: int, word_weights: list[float] | None,
                   text_tokens: list[str] | None) -> list[Block]:
    """:func:`window_blocks` of whole words made of ``pieces`` whose tokens are known: each
    window's tokens are its pieces' (no token crosses a space), a piece cut by a window edge
    analysed in its two parts. An ASCII piece's second part is the rest of its tokens
    (``[a-z0-9]+`` words and Latin runs never hold a space, so a cut between two words cuts
    the token list there), not analysed again."""
    # the parts cut at a window edge are texts no other caller asks for: analysed, not
    # remembered
    seen = getattr(an, "analyzer", an).tokens
    n_words = len(words)
    n_spans = len(spans)
    out = []
    at = 0  # the first span not wholly in earlier windows
    cut = -1  # the span cut at the last window's edge, when its first part's tokens are known
    n_head = 0  # how many tokens that first part has
    for k, a in enumerate(range(0, n_words, size)):
        b = a + size
        toks: list[str] = []
        while at < n_spans:
            s, e, p = spans[at]
            if s >= b:
                break
            if s >= a:
                if e <= b:  # the whole piece
                    toks += piece_tokens[p]
                else:  # its first part: the words up to the window's edge
                    head = seen(" ".join(words[s:b]))
                    toks += head
                    if pieces[p].isascii():
                        cut, n_head = at, len(head)
                    break
            elif at == cut and e <= b:  # the rest of a piece cut at this window's start
                toks += piece_tokens[p][n_head:]
            else:  # a piece longer than a window: its words in this one
                toks += seen(" ".join(words[a:min(e, b)]))
                cut = -1
            if e > b:
                break
            at += 1
        if text_tokens is not None:
            text_tokens += toks
        blk = Block(" ".join(words[a:b]), term_counts(toks), k, k)
        if word_weights is not None:
            ws = word_weights[a:b]
            blk.weight = round(sum(ws) / len(ws), 4)
            blk.role = "main" if blk.weight >= 0.5 else "template"
        out.append(blk)
    return out


def _spans(pieces: list[str], n_words: int, sizes: list[int] | None = None
           ) -> list[tuple[int, int, int]] | None:
    """(first word, end word, index) of each non-empty piece; None when they do not make up
    the ``n_words`` words (then the windows are analysed as they are). ``sizes``:
    :func:`part_sizes` of ``pieces`` when the caller has them (then no piece is empty)."""
    if sizes is not None:
        ends = list(accumulate(sizes))
        if not ends:
            return [] if n_words == 0 else None
        if ends[-1] != n_words:
            return None
        return list(zip([0, *ends[:-1]], ends, range(len(ends)), strict=True))
    out = []
    pos = 0
    for k, p in enumerate(pieces):
        if not p:
            continue
        n = p.count(" ") + 1
        out.append((pos, pos + n, k))
        pos += n
    return out if pos == n_words else None


def _span_tokens(an: Analyzer, spans: list[tuple[int, int, int]], at: int, a: int, b: int,
                 words: list[str], pieces: list[str],
                 piece_tokens: list[list[str]] | None = None) -> tuple[list[str], int]:
    """Tokens of words ``a:b`` from the pieces covering them (a piece cut by the window edge:
    its words in the window), and the first span the next window needs."""
    toks: list[str] = []
    seen = getattr(an, "seen", None) or an.tokens
    while at < len(spans):
        s, e, k = spans[at]
        if s >= b:
            break
        if s >= a and e <= b:
            toks.extend(seen(pieces[k]) if piece_tokens is None else piece_tokens[k])
        else:
            toks.extend(seen(" ".join(words[max(s, a):min(e, b)])))
        if e > b:
            break
        at += 1
    return toks, at


def page_words(page: Any, p_main: Any = None) -> tuple[str, list[float] | None]:
    """:func:`page_text` and, with ``p_main`` (per text leaf), each word's P(main)."""
    parts, weights = page_parts(page, p_main)
    return " ".join(parts), weights


def page_parts(page: Any, p_main: Any = None) -> tuple[list[str], list[float] | None]:
    """The visible leaves' normalised texts (:func:`page_words` joins them) and, with
    ``p_main``, each word's P(main)."""
    parts, probs = shown_parts(page, p_main)
    return parts, None if probs is None else word_weights(parts, probs)


def word_weights(parts: list[str], probs: list[float],
                 sizes: list[int] | None = None) -> list[float]:
    """Each word's weight: its part's (``parts`` whitespace-normalised, one weight each).
    ``sizes``: :func:`part_sizes` of ``parts`` when the caller has them."""
    if len(parts) != len(probs):
        raise ValueError("word_weights: one probability per part")
    return list(chain.from_iterable(map(repeat, probs,
                                        part_sizes(parts) if sizes is None else sizes)))


def part_sizes(parts: list[str]) -> list[int]:
    """The number of words of each whitespace-normalised text of ``parts``."""
    return [t.count(" ") + 1 for t in parts]


def shown_parts(page: Any, p_main: Any = None) -> tuple[list[str], list[float] | None]:
    """The visible leaves' non-empty normalised texts and, with ``p_main`` (per text leaf),
    each one's P(main)."""
    keep = shown_leaves(page)
    parts = list(map(page.leaf_texts.__getitem__, keep))
    if p_main is None:
        return parts, None
    import numpy as np

    return parts, np.asarray(p_main, dtype=np.float64)[keep].tolist()


def shown_leaves(page: Any) -> list[int]:
    """Positions (in ``page.text_leaves``) of the visible leaves with text, in order: the
    leaves a page's text is made of."""
    import numpy as np

    vis = np.asarray(page.visible, dtype=bool)[page.text_leaves].tolist()
    return [j for j, (v, t) in enumerate(zip(vis, page.leaf_texts, strict=True)) if v and t]


def page_text(page: Any) -> str:
    """All visible text of a rendered page (title first), leaves joined in document order."""
    from webseg.page import normalize_text

    leaves = page.text_leaves
    vis = page.visible
    parts = [normalize_text(page.text[i]) for i in leaves.tolist() if vis[i]]
    return " ".join(p for p in parts if p)


def _segmenter(source: str) -> Any:
    from webseg.segmenters import get_segmenter

    spec = SOURCES.get(source, (source, {}))
    if spec is None:
        raise ValueError("windows is not a segmenter")
    return get_segmenter(spec[0], **spec[1])


_CACHE: dict[str, Any] = {}


def page_blocks(page: Any, source: str, an: Analyzer, p_main: Any = None,
                seg: Any = None) -> list[Block]:
    """Blocks of a rendered ``page`` from ``source`` (see module docstring); with ``p_main``
    (P(main) per text leaf, :mod:`ir.content`) each block gets its weight and role; ``seg``
    reuses a segmentation already computed by that source's segmenter."""
    if source == "windows":
        text, w = page_words(page, p_main)
        return window_blocks(text, an, word_weights=w)
    if seg is None:
        seg_algo = _CACHE.get(source)
        if seg_algo is None:
            seg_algo = _CACHE[source] = _segmenter(source)
        seg = seg_algo.segment(page)
    return segmentation_blocks(seg, an, non_template_only=source == "pagelevel",
                               p_main=p_main)



def segmentation_blocks(seg: Any, an: Analyzer, non_template_only: bool = False,
                        p_main: Any = None) -> list[Block]:
    """Blocks from a segmentation already computed: its finest non-empty segments in geometry
    rank order (only those with templateness < 0.5 when ``non_template_only``)."""
    segs = seg.at_level(None)
    if non_template_only:
        segs = [s for s in segs if float(s.attrs.get("templateness", 0.0)) < 0.5]
    segs = [s for s in segs if s.text and not s.text.isspace()]
    segs.sort(key=lambda s: (float(s.box[1]), float(s.box[0]), s.id))
    pieces: list[list[Any] | None] = []
    leaf_tokens = getattr(an, "leaf_tokens", None)
    # a page's analyzer has its leaves' tokens already (the windows, the fields)
    page_toks = None if leaf_tokens is None or seg.page is None else leaf_tokens(seg.page)
    seen = getattr(an, "seen", None) or an.tokens
    texts = _joined_texts(seg.page, segs, pieces, page_toks, seen)
    out = []
    for r, (s, t, parts) in enumerate(zip(segs, texts, pieces, strict=True)):
        if parts is None:
            terms = _terms(an, t)
        elif page_toks is not None:  # t is its leaves' texts joined by spaces: no token
            # crosses one, so its tokens are its leaves' (parts: their token lists)
            terms = term_counts(parts[0] if len(parts) == 1 else chain.from_iterable(parts))
        else:
            toks: list[str] = []
            for part in parts:
                toks += seen(part)
            terms = term_counts(toks)
        out.append(Block(t, terms, int(s.id), r, tuple(map(float, s.box))))
    if p_main is not None:
        from ir.content import weigh_blocks

        weigh_blocks(out, seg, p_main)
    return out


def _joined_texts(page: Any, segs: list[Any],
                  pieces: list[list[Any] | None] | None = None,
                  leaf_tokens: list[list[str]] | None = None,
                  tokenize: Any = None) -> list[str]:
    """Each segment's text with its leaves joined as the browser shows them (as ``webseg
    clean`` joins them): no space where the source has none between two leaves, so
    ``小型微利<a>企业</a>`` stays one run of Chinese (its bigram ``利企`` indexed, its snippet
    unbroken) and ``W<b>orld</b>`` one word. Segmenters join leaves with spaces; a segment
    whose leaves do not give back its own text (other than in spacing) keeps that text.

    ``pieces`` (an empty list) receives, per segment, its leaves' texts when its text is
    exactly them joined by single spaces, else None; with ``leaf_tokens`` (the tokens of
    every text leaf, ``page.text_leaves`` order), their token lists instead of their texts.
    With ``leaf_tokens`` and ``tokenize`` (text -> its tokens, read only), a segment with
    glued leaves gets token lists too: one per run of leaves its text joins with no space
    (a single leaf's known tokens, else ``tokenize`` of the run's text). No token crosses a
    space, so they are its text's tokens, while only the glued runs are analysed again."""
    if pieces is None:
        pieces = []
    import numpy as np

    from webseg.clean.layout import NONE, joints

    if page is None or getattr(page, "ws_before", None) is None and not page.has_layout:
        pieces.extend(None for _ in segs)
        return [s.text for s in segs]  # no whitespace record and no layout: nothing to go by
    shown = np.asarray(page.visible, dtype=bool)[page.text_leaves]
    leaves = page.text_leaves[shown]
    # the leaves' normalised texts, computed once per page (Page.leaf_texts)
    at_shown = np.flatnonzero(shown).tolist()
    leaf_texts = [page.leaf_texts[k] for k in at_shown]
    # what pieces receive of each leaf: its text, or its tokens
    own = leaf_texts if leaf_tokens is None else [leaf_tokens[k] for k in at_shown]
    by_runs = leaf_tokens is not None and tokenize is not None
    if len(leaves) < 2:
        pieces.extend(None for _ in segs)
        return [s.text for s in segs]
    glued_at = joints(page, leaves)[0] == NONE
    glued = glued_at.tolist()
    # glued joints and textless leaves counted before each leaf: a one-root segment with
    # neither among its leaves is its leaves' texts joined by spaces (nearly every segment)
    n_glued = np.concatenate(([0], np.cumsum(glued_at))).tolist()
    n_empty = np.concatenate(([0], np.cumsum([not t for t in leaf_texts]))).tolist()
    ends = page.subtree_end
    roots = np.fromiter(chain.from_iterable(s.nodes for s in segs), dtype=np.int64)
    los = np.searchsorted(leaves, roots).tolist()
    his = np.searchsorted(leaves, ends[roots]).tolist()
    at = 0
    out = []
    for s in segs:
        k = len(s.nodes)
        if k == 1:
            a, z = los[at], his[at]
            at += 1
            if n_empty[z] == n_empty[a] and (z - a < 2 or n_glued[z] == n_glued[a + 1]):
                text = " ".join(leaf_texts[a:z])
                own_text = s.text
                same = text == own_text or "".join(text.split()) == "".join(own_text.split())
                out.append(text if same else own_text)
                pieces.append(own[a:z] if same and text else None)
                continue
            lo, hi = [a], [z]
        else:
            lo, hi = los[at:at + k], his[at:at + k]
            at += k
        # the leaves under the segment's roots, in order (one root: a range already)
        idx = range(lo[0], hi[0]) if len(lo) == 1 else sorted(
            {i for a, b in zip(lo, hi, strict=True) for i in range(a, b)})
        parts: list[str] = []
        texts: list[Any] | None = []  # the leaves' texts, while every joint is a space
        runs: list[list[int]] = []  # the leaves of each run joined with no space
        prev = -2
        for i in idx:
            t = leaf_texts[i]
            if not t:
                continue
            if parts:
                if not (i == prev + 1 and glued[i]):
                    parts.append(" ")
                    runs.append([i])
                else:
                    texts = None
                    runs[-1].append(i)
            else:
                runs.append([i])
            parts.append(t)
            if texts is not None:
                texts.append(own[i])
            prev = i
        text = "".join(parts)
        same = text == s.text or "".join(text.split()) == "".join(s.text.split())
        out.append(text if same else s.text)
        if same and texts is None and by_runs:
            texts = [own[r[0]] if len(r) == 1
                     else tokenize("".join([leaf_texts[i] for i in r])) for r in runs]
        pieces.append(texts if same and texts else None)
    return out
