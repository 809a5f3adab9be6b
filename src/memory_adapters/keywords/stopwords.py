"""Words the local keyword tier never offers as a label: English function words, and the common verbs, adverbs,
adjectives and vague nouns that say nothing specific about an entry ("next", "every", "changed", "better").

Inflections are matched through `memory_core.policies.keyword_tiers.stem`, so listing a base form (change) also stops
its variants (changes, changed, changing). The spec's generic words (`memory_core.entries.keywords.GENERIC_WORDS`) are
included.
"""

from __future__ import annotations

from memory_core.policies.keyword_tiers import stem
from memory_core.entries.keywords import GENERIC_WORDS

FUNCTION_WORDS = frozenset("""
a about above according across after afterwards again against ago ahead all almost alone along already also
although always am among amongst an and another any anybody anyone anything anyway anywhere are around as at
away back be because been before beforehand behind being below beside besides between beyond both but by can
cannot could did do does doing done down during each either else elsewhere enough etc even ever every
everybody everyone everything everywhere except few for former formerly from further furthermore had has have
having he hence her here hereby herein hers herself him himself his how however i ie if in inside into is it
its itself just least less let lets like likewise many may maybe me meanwhile might mine more moreover most
mostly much must my myself namely neither never nevertheless no nobody none noone nor not nothing now nowhere
of off often on once one ones only onto or other others otherwise ought our ours ourselves out outside over
overall own per perhaps please quite rather re regardless same several shall she should since so some
somebody someone something sometimes somewhat somewhere soon still such than that the their theirs them
themselves then there thereafter thereby therefore these they this those though through throughout thru thus
to together too toward towards under unless unlike until up upon us very via vs was we well were what
whatever when whenever where whereas wherever whether which while who whoever whole whom whose why will with
within without would yet you your yours yourself yourselves
zero two three four five six seven eight nine ten first second third twice half
""".split())

COMMON_VERBS = frozenset("""
accept achieve add address affect agree allow appear apply argue ask assume attempt avoid become begin believe
bring call can carry catch cause check choose claim come compare complain concern confirm consider contain continue
contribute correlate cost could create deal decide declare demand depend describe deserve determine discover
discuss do eliminate emphasize enable encourage end ensure establish expect explain explore express face fail
fall feel find finish follow force forget gain gather get give go grow happen help hide hit hold hope identify
ignore illustrate imagine improve include increase indicate influence inform insist intend introduce involve
join keep know lack lead learn leave let lie like live look lose love make manage mark materialize mean meet
mention miss move need note notice obtain occur offer omit open pass pay perform pick place predict prefer
prepare present preserve prevent proceed produce promise propagate propose protect prove provide put raise
reach read realize receive recognize recommend reduce refer reflect refuse regard relate rely remain remember
remove repeat replace reply report represent require resolve respond result retain return reveal rise run say see
seek seem send settle should show skip solve speak spend stand start stay stop succeed suffer suggest suppose
survive take talk teach tell tend think touch treat trust try turn understand urge use used vary wait want warn
waste watch wish wonder work worry would write yield
""".split())
"""Verbs that say what someone did, not what the entry is about; inflections (requires, skipping) included."""

IRREGULAR_VERB_FORMS = frozenset("""
became began brought came chose chosen did done fell felt found gave given gone got gotten held kept knew known
led left lost made meant paid ran said saw seen sent shown spent stood taken thought told took understood went
written wrote
""".split())
"""Past forms the stemmer cannot tie to their verb (made/make)."""

COMMON_MODIFIERS = frozenset("""
able actual actually additional additionally always appropriate automatic automatically available bad basic
basically best better big broad certain certainly clear clearly close common complete completely comprehensive
concrete conservative correct correctly current currently different direct directly distinct due early easily
easy effective entire entirely especially essential exact exactly exhaustive existing explicit explicitly extra
fast faster final finally fine free full fully fundamental future general generally given good great hard
heavy high immediate immediately important incomplete independent individual instead large last late later
legitimate less light likely little long low lower main major many mere merely minimal minor more most multiple
narrow natural necessary needed new next nice normal normally obvious obviously old only original other
partial particular particularly possible possibly potential potentially previous previously primary probably
proper properly quick quickly rare rarely ready real really recent recently relevant right same separate
serious several short significant significantly similar simple simply simultaneous single slow small specific
specifically standard strong subsequent substantive sure thorough truly typical typically underlying
unnecessary unrelated usual usually various whole wrong
""".split())
"""Adjectives and adverbs that do not narrow a topic down ("next", "every" is a function word)."""

VAGUE_WORDS = frozenset("""
approach area aspect benefit case cases content count detail details double effort entry example examples fact
factor false form idea input instance issue issues item items kind level line lines list lot manner matter means
min mins name names need needs note number option output part piece place point problem problems purpose
question reason result results round sec section sections side situation sort step steps structure stuff thing
things time times total true type value values way ways
""".split())
"""Too vague to stand alone, but they may open a phrase: false positive, type annotation, input validation."""

STRUCTURE_LABELS = frozenset("""
avoided benefit cost example instead insight key lesson mantra observed problem rationale see solution source
used
""".split())
"""Bullet labels of the knowledge-bank format (`- Observed in:`, `- Cost:`): structure, not content."""

EXACT_ONLY = frozenset("set sets".split())
"""Stopped in exactly this form: their inflections are terms (settings)."""

STOPWORDS = (EXACT_ONLY | FUNCTION_WORDS | COMMON_VERBS | IRREGULAR_VERB_FORMS | COMMON_MODIFIERS | VAGUE_WORDS
             | STRUCTURE_LABELS | GENERIC_WORDS)
_STOP_STEMS = frozenset(stem(w) for w in COMMON_VERBS | COMMON_MODIFIERS | VAGUE_WORDS | GENERIC_WORDS)


_NOUNS_IN_LY = frozenset("anomaly apply assembly family monopoly multiply reply supply".split())


def is_stopword(word: str) -> bool:
    """True for a lowercase word (or an inflection of one) that is no specific label on its own."""
    if word in STOPWORDS:
        return True
    if word.endswith("ly") and len(word) > 5 and word.isalpha() and word not in _NOUNS_IN_LY:
        return True  # an adverb: repeatedly, independently
    # "runner", "reader", "worker" name a thing, unlike run/read/work: only inflections are stopped.
    return not word.endswith(("er", "ers")) and stem(word) in _STOP_STEMS
