#!/usr/bin/env python3
"""Synthetic enwiki-shaped dump generator for the scale benchmark (issue 15).

What: writes a MediaWiki XML export (export-0.11, enwiki's <siteinfo> and namespaces)
of N articles and their redirects, with the link, red-link and category shape the issue
uses as its reference (1 M articles x 60 links, 10 % red, one redirect each, 3 categories
= 2 M pages, about 5.8 GB of XML; about 2.9 KB of XML per page).

Why: real enwiki dumps are too big to ship and the small ones in ../shared/data do not
grow; this gives dumps of any size with one shape, so peak memory and time per page
can be compared across sizes (tools/bench-scale.sh).

How:
    tools/gen-enwiki-shape.py --articles 125000 --out /tmp/enwiki-125k.xml
    tools/gen-enwiki-shape.py --articles 1000 --seed 7 --out - | head

Options: --articles N, --links L (own-text links per article), --red-fraction F (share
of those links to titles without a page), --red-pool P (red titles drawn from P x N
names), --redirects-per-article R (fractional values allowed), --categories C per
article (from a pool of about N/20 names), --sections S, --seed, --out PATH ('-' for
stdout). The same arguments give byte-identical output (one seeded random.Random,
no dict/set iteration order, no clock). Standard library only, no network.

At the end it prints one JSON line of what it wrote to stderr (pages, articles,
redirects, links written, distinct blue (source, target) pairs, distinct red targets,
categories, bytes), so an index built from the dump can be checked against it:
wikiwit's `links` count is expected to equal `expected_index_links` (distinct links
between existing pages, the article texts' plus each redirect's link to its target),
`red_titles` to `red_targets` plus `red_templates` (the distinct templates called: none
is in the dump, and an expanding build, as MediaWiki, records a missing template's call
as a link to it) and `categories` to `categories`.

Shape of a page: {{Short description}}, sometimes an infobox without links, a lead and
S `== Heading ==` sections of prose fragments between the links, <ref>{{cite ...}}</ref>
after some sentences (so the XML carries &lt; &gt; &quot; as real dumps do), a
References section, sometimes {{DEFAULTSORT}}, then C [[Category:...]] lines. Links are
`[[Target]]`, `[[target]]` (lower-case first letter, for titles otherwise in lower
case), `[[Target|text]]`, `[[Target]]s`, `[[Target_with_underscores]]` and
`[[Target#Section|text]]`; of the blue links about 30 % go to nearby articles (topic clusters), 30 % to popular ones (power law), 30 %
anywhere and 8 % to redirects. Red links are drawn uniformly from P x N titles, which
gives about 1.9 distinct red titles per article at the defaults (the number of distinct
red titles weighs on the build's memory: --red-pool 0.25 instead of 2 took 28 MiB off
the old build's peak at 125 k articles). Titles are multi-word, about one in seven with
non-ASCII letters, one in seven with parentheses, one in sixteen with a comma, and the
odd `&`. Redirects are emitted near their target, mostly after it, sometimes before,
as page ids fall in real dumps.

Speed: 35-45 MB/s of XML on one core (1 M articles: 5.83 GB in 168 s, 0.5 GB of memory
for the precomputed titles).
"""

import argparse
import array
import hashlib
import json
import random
import re
import sys
import time
import unicodedata

VERSION = "2"

NAMESPACES = [
    (-2, "Media"), (-1, "Special"), (0, ""), (1, "Talk"), (2, "User"), (3, "User talk"),
    (4, "Wikipedia"), (5, "Wikipedia talk"), (6, "File"), (7, "File talk"),
    (8, "MediaWiki"), (9, "MediaWiki talk"), (10, "Template"), (11, "Template talk"),
    (12, "Help"), (13, "Help talk"), (14, "Category"), (15, "Category talk"),
    (100, "Portal"), (101, "Portal talk"), (118, "Draft"), (119, "Draft talk"),
    (126, "MOS"), (127, "MOS talk"), (710, "TimedText"), (711, "TimedText talk"),
    (828, "Module"), (829, "Module talk"), (1728, "Event"), (1729, "Event talk"),
]

FIRST = """James John Robert Michael William David Richard Joseph Thomas Charles Mary
Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Anna Maria Olga
Ivan Pierre Jean Louis François Hélène Zoë Søren Björn Jürgen Günter Łukasz Paweł
Tomáš Jiří Dvořan Ángel José Sebastián Inês João Mihail Sándor Erzsébet Çelik Ömer
Ayşe Nikolai Aleksandr Yuki Hiroshi Kenji Mei Wei Li Chen Amara Kwame Chidi Fatima
Aisha Omar Hassan Leila Ravi Priya Arjun Anil Sunita Carlos Diego Lucía Martín Sofía
Emma Olivia Noah Liam Lucas Hugo Felix Oskar Astrid Ingrid Sigrid Freya Nils Lars
Henrik Mateo Rafael Gabriel Isabel Beatriz Andrzej Krzysztof Małgorzata Agnieszka
Vilhelm Edvard Frederik Magnus Tove Eero Aino Väinö Jaana Kaarlo Otto Ernst Friedrich
Wilhelm Heinrich Klaus Dieter Walter George Henry Edward Arthur Albert Frank Harold
Samuel Benjamin Daniel Matthew Andrew Peter Paul Mark Simon Stephen Philip Alice
Grace Ruth Helen Margaret Dorothy Frances Eleanor Catherine Victoria Charlotte
Amélie Céline Élodie Renée Noémie Ludovic Rémi Stéphane Ferenc Dénes Zoltán Gábor""".split()

INITIALS = list("ABCDEFGHJKLMNOPRSTW")

ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l",
          "m", "n", "p", "pr", "r", "s", "sch", "sh", "st", "t", "tr", "v", "w", "z",
          "ž", "š", "č", "ł", "ř", "ñ"]
VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "ia", "ei", "ou", "á", "é", "ö",
          "ü", "ø", "å", "í", "ó"]
CODAS = ["", "", "", "n", "r", "s", "l", "m", "t", "nd", "rg", "st", "k", "x"]
PLACE_END = ["", "", "burg", "ville", "ton", "ham", "ford", "dorf", "ov", "ice", "ia",
             "stad", "by", "heim", "grad", "pur", "abad", "ford", "mouth", "wick"]
LAST_END = ["", "", "", "son", "sen", "ski", "ová", "ez", "ini", "escu", "ović",
            "berg", "mann", "ley", "er", "sson", "yan", "aki", "ides"]
ACCENT_CAP = {"ž": "Ž", "š": "Š", "č": "Č", "ł": "Ł", "ř": "Ř", "ñ": "Ñ"}

REGIONS = """Ontario Quebec Bavaria Saxony Tuscany Lombardy Catalonia Andalusia Galicia
Brittany Normandy Provence Flanders Wallonia Silesia Bohemia Moravia Transylvania
Anatolia Punjab Bengal Kerala Gujarat Yunnan Sichuan Hokkaidō Kyūshū Queensland
Victoria Tasmania Patagonia Minas-Gerais Bahia Oaxaca Jalisco Sonora Texas Ohio
Oregon Vermont Maine Wales Scotland Cornwall Yorkshire Kent Essex Devon Ulster
Munster Connacht Jutland Scania Lapland Karelia Dalmatia Istria Thessaly Crete
Sardinia Sicily Corsica Zealand Friesland Limburg Styria Tyrol Carinthia Valais
Ticino Graubünden Zürich Genève Asturias Navarre Murcia Alentejo Algarve""".split()

FEATURES = ["River", "Lake", "Bridge", "Castle", "Cathedral", "Airport", "Tower",
            "Palace", "Park", "Square", "Harbour", "Valley", "Mountain", "Island",
            "Canal", "Abbey", "Museum", "University", "Stadium", "Lighthouse", "Dam",
            "Forest", "Bay", "Pass", "Glacier", "Priory", "Mill", "Manor", "Gate",
            "Market"]
ADJ = """ancient modern northern southern eastern western upper lower coastal alpine
rural urban medieval classical early late royal imperial federal national regional
industrial agricultural maritime colonial tropical volcanic glacial musical literary
political economic social religious military naval civil criminal electoral
linguistic botanical zoological geological astronomical chemical electrical
mechanical digital analog nuclear solar lunar polar desert riverine""".split()
NOUNS = """erosion architecture cuisine literature music history geography economy
politics dialect script alphabet calendar currency railway tramway canal dynasty
monarchy republic parliament council assembly treaty rebellion uprising siege
campaign expedition migration settlement festival tradition folklore mythology
painting sculpture pottery weaving metallurgy mining forestry fishery viticulture
brewing astronomy cartography navigation shipbuilding engineering medicine law
theatre opera ballet cinema radio television journalism photography education
orchestra choir cathedral monastery fortress harbour lighthouse observatory""".split()
OCCUPATIONS = ["footballer", "politician", "painter", "composer", "writer", "poet",
               "actor", "actress", "singer", "architect", "physicist", "chemist",
               "mathematician", "botanist", "cyclist", "rower", "bishop", "general",
               "admiral", "economist", "historian", "philosopher", "engineer",
               "journalist", "sculptor", "photographer", "cricketer", "boxer",
               "pianist", "violinist"]
WORKS = ["film", "album", "novel", "song", "play", "opera", "TV series", "video game",
         "EP", "short story", "painting", "poem", "band", "ship", "horse"]
EVENTS = ["Open", "Marathon", "Grand Prix", "Championships", "election",
          "earthquake", "flood", "riots", "Games", "Cup", "Festival", "Congress",
          "Exhibition", "Regatta", "strike", "Rally", "Classic", "Biennale",
          "Conference", "Derby"]
ORG = ["Football Club", "University", "Railway Company", "Symphony Orchestra",
       "Institute", "Academy", "Brewery", "Shipyard", "Airlines", "Observatory",
       "Bank", "Museum of Art", "Botanical Garden", "Chamber Choir", "Rowing Club"]
SPECIES_END = ["us", "a", "um", "is", "ia", "ensis", "oides", "ella", "ix", "on"]
SHIP = ["HMS", "USS", "SS", "RMS", "HMAS", "SMS", "MV"]
PLURALS = ["rivers", "lakes", "bridges", "castles", "churches", "museums", "mayors",
           "railway stations", "football clubs", "islands", "mountains", "parks",
           "newspapers", "schools", "festivals", "airports"]
HEADINGS = ["History", "Geography", "Early life", "Career", "Description",
            "Reception", "Legacy", "Etymology", "Distribution", "Works", "Background",
            "Personal life", "Climate", "Demographics", "Economy", "Culture",
            "Architecture", "Transport", "Production", "Release", "Biology",
            "Taxonomy", "Aftermath", "Organisation", "Design", "Operational history",
            "Later years", "Politics", "Education", "Sport"]
FUNC = """the a of in and to with by from for on at as that which was were is are has
had its their his her this these an into during after before between under over
near within across through while when where""".split()
VERBS = """built founded described named recorded published elected appointed
established located opened closed restored destroyed rebuilt expanded renamed
acquired studied developed produced released performed designed constructed
documented reported governed served occupied surveyed excavated discovered""".split()
COMMON = """town village city region county district province river valley coast
island church school station road bridge castle family company team club season
album film novel song book series collection population area border treaty war
battle election party government army navy court museum library university college
market festival century decade period dynasty kingdom empire republic state country
building tower hall garden park harbour port line route service network system
species genus family habitat range record title award prize medal league cup final
match game player coach member leader founder author editor artist style movement
""".split()
USERS_A = ["Blue", "Green", "Old", "Quiet", "North", "River", "Stone", "Iron", "Red",
           "Silver", "Wiki", "Night", "Small", "Great", "Little"]
USERS_B = ["Fox", "Owl", "Editor", "Gnome", "Heron", "Walker", "Reader", "Scribe",
           "Bot", "Badger", "Lynx", "Otter", "Finch", "Raven", "Wolf"]
COMMENTS = ["", "copyedit", "/* History */ expand", "add references", "ce",
            "fix typo", "Reverted edits", "update infobox", "cleanup",
            "/* Career */ add sources", "rm unsourced claim", "link fix",
            "Adding [[Wikipedia:Short description|short description]]",
            "v2.05 - Repaired 1 link to disambiguation page", "Rescuing 2 sources"]
RTEMPLATES = ["", "", "{{R from alternative name}}", "{{R from other capitalisation}}",
              "{{R from diacritic}}", "{{R from move}}",
              "{{Redirect category shell|\n{{R from alternative spelling}}\n}}"]
STUBS = ["geo-stub", "bio-stub", "hist-stub", "stub", "sport-stub", "music-stub"]
INFOBOXES = ["settlement", "person", "river", "building", "album", "film", "company",
             "football club", "species", "event"]

FOLD = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "ı": "i"})


def ascii_fold(s):
    """`Zürich` -> `Zurich`: the title a `{{R from diacritic}}` redirect would have."""
    s = unicodedata.normalize("NFKD", s.translate(FOLD))
    return "".join(c for c in s if not unicodedata.combining(c))


def cap(w):
    c = w[0]
    return ACCENT_CAP.get(c, c.upper()) + w[1:]


def lcfirst(t):
    """`[[coastal erosion]]` for `Coastal erosion`: only titles whose other letters are
    all lower case (common nouns, not names)."""
    c = t[0]
    if len(t) > 1 and t[1:].islower() and c.isupper():
        low = c.lower()
        if low.upper() == c and len(low) == 1:
            return low + t[1:]
    return t


def syllable_words(rng, n, endings, nsyl):
    """n distinct pseudo-words (`Korvalen`, `Žabrovice`) from onsets, vowels and codas."""
    seen = set()
    out = []
    while len(out) < n:
        # About one word in ten has a non-ASCII letter (so about one title in six).
        accented = rng.random() < 0.1
        while True:
            k = rng.choice(nsyl)
            w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) for _ in range(k))
            w += rng.choice(CODAS) + rng.choice(endings)
            if w.isascii() != accented:
                break
        w = cap(w)
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


class Titles:
    """Distinct, realistic-looking main-namespace titles (all with an upper-case first
    letter, single spaces, no `:#<>[]|{}%_`), drawn from one seeded generator."""

    def __init__(self, rng):
        self.rng = rng
        self.seen = set()
        self.places = syllable_words(rng, 6000, PLACE_END, [1, 2, 2, 3])
        self.lasts = syllable_words(rng, 9000, LAST_END, [1, 2, 2, 3])
        self.genera = syllable_words(rng, 3000, SPECIES_END, [2, 3, 3])
        self.epithets = [w.lower() for w in syllable_words(rng, 800, SPECIES_END, [2, 3])]
        pats = [
            (20, self.person), (4, self.person_initial), (8, self.person_dab),
            (8, self.place_region), (7, self.place_feature), (5, self.topic),
            (6, self.topic_of), (6, self.event), (8, self.work), (3, self.org),
            (6, self.species), (2, self.ship), (3, self.station), (1, self.list_of),
        ]
        self.pat_fns = []
        for w, f in pats:
            self.pat_fns += [f] * w

    def person(self):
        r = self.rng
        return r.choice(FIRST) + " " + r.choice(self.lasts)

    def person_initial(self):
        r = self.rng
        return r.choice(FIRST) + " " + r.choice(INITIALS) + ". " + r.choice(self.lasts)

    def person_dab(self):
        r = self.rng
        return f"{r.choice(FIRST)} {r.choice(self.lasts)} ({r.choice(OCCUPATIONS)})"

    def place_region(self):
        r = self.rng
        return r.choice(self.places) + ", " + r.choice(REGIONS).replace("-", " ")

    def place_feature(self):
        r = self.rng
        f = r.choice(FEATURES)
        p = r.choice(self.places)
        return f"{f} {p}" if f in ("Lake", "Mount") else f"{p} {f}"

    def topic(self):
        r = self.rng
        return cap(r.choice(ADJ)) + " " + r.choice(NOUNS) + (
            "" if r.random() < 0.7 else " in " + r.choice(self.places))

    def topic_of(self):
        r = self.rng
        return f"{cap(r.choice(NOUNS))} of {r.choice(self.places)}"

    def event(self):
        r = self.rng
        return f"{r.randint(1850, 2024)} {r.choice(self.places)} {r.choice(EVENTS)}"

    def work(self):
        r = self.rng
        name = cap(r.choice(ADJ)) + " " + cap(r.choice(COMMON))
        if r.random() < 0.3:
            name = "The " + name
        kind = r.choice(WORKS)
        if r.random() < 0.5:
            return f"{name} ({r.randint(1900, 2024)} {kind})"
        return f"{name} ({kind})"

    def org(self):
        r = self.rng
        if r.random() < 0.3:
            return f"{r.choice(self.lasts)} & {r.choice(self.lasts)}"
        return f"{r.choice(self.places)} {r.choice(ORG)}"

    def species(self):
        r = self.rng
        return r.choice(self.genera) + " " + r.choice(self.epithets)

    def ship(self):
        r = self.rng
        return f"{r.choice(SHIP)} {r.choice(self.places)} ({r.randint(1790, 1990)})"

    def station(self):
        r = self.rng
        return r.choice(self.places) + " railway station"

    def list_of(self):
        r = self.rng
        return f"List of {r.choice(PLURALS)} in {r.choice(self.places)}"

    def claim(self, t):
        """Takes title `t` if it is free."""
        if t in self.seen:
            return False
        self.seen.add(t)
        return True

    def fresh(self):
        fns = self.pat_fns
        r = self.rng
        tries = 0
        while True:
            t = r.choice(fns)()
            tries += 1
            if tries > 20:  # a crowded pattern: qualify it
                t += f" ({r.choice(self.places)})"
            if self.claim(t):
                return t

    def alternative(self, t):
        """A redirect title for article `t`: another spelling or capitalisation, the
        name without its qualifier, or (failing those) a fresh alternative name."""
        r = self.rng
        cands = []
        folded = ascii_fold(t)
        if folded != t:
            cands.append(folded)
        if t.endswith(")") and " (" in t:
            cands.append(t[: t.index(" (")])
        words = t.split(" ")
        if len(words) >= 2:
            cands.append(" ".join([words[0]] + [cap(w) for w in words[1:]]))
            if words[-1][:1].isupper() and words[0] in FIRST_SET:
                cands.append(words[0][0] + ". " + " ".join(words[1:]))
        r.shuffle(cands)
        for c in cands:
            if c != t and self.claim(c):
                return c
        return self.fresh()


FIRST_SET = frozenset(FIRST)


def fragments(rng, n):
    """n prose fragments (2-7 words, no markup) to put between links."""
    out = []
    for _ in range(n):
        k = rng.randint(2, 7)
        ws = []
        for j in range(k):
            x = rng.random()
            if x < 0.4:
                ws.append(rng.choice(FUNC))
            elif x < 0.7:
                ws.append(rng.choice(COMMON))
            elif x < 0.82:
                ws.append(rng.choice(VERBS))
            elif x < 0.94:
                ws.append(rng.choice(ADJ))
            else:
                ws.append(str(rng.randint(1066, 2024)))
        out.append(" ".join(ws))
    return out


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def sha1_base36(b):
    n = int.from_bytes(hashlib.sha1(b).digest(), "big")
    out = []
    for _ in range(31):
        n, d = divmod(n, 36)
        out.append(B36[d])
    return "".join(reversed(out))


def header():
    ns = "\n".join(
        f'      <namespace key="{k}" case="first-letter" />' if k == 0
        else f'      <namespace key="{k}" case="first-letter">{name}</namespace>'
        for k, name in NAMESPACES)
    return f"""<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.mediawiki.org/xml/export-0.11/ http://www.mediawiki.org/xml/export-0.11.xsd" version="0.11" xml:lang="en">
  <siteinfo>
    <sitename>Wikipedia</sitename>
    <dbname>enwiki</dbname>
    <base>https://en.wikipedia.org/wiki/Main_Page</base>
    <generator>MediaWiki 1.43.0-wmf.3 (gen-enwiki-shape v{VERSION})</generator>
    <case>first-letter</case>
    <namespaces>
{ns}
    </namespaces>
  </siteinfo>
"""


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Write a synthetic enwiki-shaped MediaWiki XML dump (deterministic).")
    p.add_argument("--articles", type=int, default=125000, help="articles (default 125000)")
    p.add_argument("--links", type=int, default=60, help="own-text links per article (60)")
    p.add_argument("--red-fraction", type=float, default=0.10,
                   help="share of links to titles without a page (0.10)")
    p.add_argument("--red-pool", type=float, default=2.0,
                   help="red targets are drawn from POOL x articles titles (2.0)")
    p.add_argument("--redirects-per-article", type=float, default=1.0,
                   help="redirects per article, fractions allowed (1.0)")
    p.add_argument("--categories", type=int, default=3, help="categories per article (3)")
    p.add_argument("--sections", type=int, default=4, help="== sections == per article (4)")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--out", default="-", help="output path, '-' for stdout (default)")
    a = p.parse_args(argv)
    if a.articles < 2:
        p.error("--articles must be at least 2 (an article links to others, never itself)")
    if a.links < 0 or a.categories < 0 or a.sections < 0 or a.redirects_per_article < 0:
        p.error("--links, --categories, --sections, --redirects-per-article must be >= 0")
    if not 0.0 <= a.red_fraction <= 1.0:
        p.error("--red-fraction must be within [0, 1]")
    if a.red_pool <= 0:
        p.error("--red-pool must be > 0")
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.monotonic()
    rng = random.Random(a.seed)
    N = a.articles
    L = a.links
    S = a.sections

    # --- titles (all precomputed: the page loop only indexes lists) ---
    titles = Titles(rng)
    arts = [titles.fresh() for _ in range(N)]
    whole = int(a.redirects_per_article)
    frac = a.redirects_per_article - whole
    rtarget = array.array("i")
    rtitles = []
    for i in range(N):
        k = whole + (1 if frac and rng.random() < frac else 0)
        for _ in range(k):
            rtarget.append(i)
            rtitles.append(titles.alternative(arts[i]))
    R = len(rtitles)
    npool = max(1, int(a.red_pool * N)) if L and a.red_fraction > 0 else 0
    red = [titles.fresh() for _ in range(npool)]
    ncat = max(a.categories, round(N / 20)) if a.categories else 0
    cat_seen = set()
    cats = []
    while len(cats) < ncat:
        x = rng.random()
        if x < 0.25:
            c = f"People from {rng.choice(titles.places)}"
        elif x < 0.45:
            c = f"{rng.randint(1700, 2020)} establishments in {rng.choice(REGIONS).replace('-', ' ')}"
        elif x < 0.6:
            c = f"{cap(rng.choice(PLURALS))} in {rng.choice(titles.places)}"
        elif x < 0.75:
            c = f"{cap(rng.choice(ADJ))} {rng.choice(NOUNS)}"
        elif x < 0.9:
            c = f"{rng.choice(OCCUPATIONS).capitalize()}s from {rng.choice(REGIONS).replace('-', ' ')}"
        else:
            c = f"{rng.choice(titles.genera)} ({rng.choice(['genus', 'family', 'order'])})"
        if c not in cat_seen:
            cat_seen.add(c)
            cats.append(c)
    del cat_seen
    titles.seen = None  # no longer needed: free it before the long loop
    frags = fragments(rng, 4096)
    frags_cap = [cap(f) for f in frags]
    users = [f"{x}{y}{rng.randint(1, 999)}" for x in USERS_A for y in USERS_B]
    sdescs = [f"{cap(rng.choice(ADJ))} {rng.choice(COMMON)} in {rng.choice(REGIONS).replace('-', ' ')}"
              for _ in range(512)]

    # Redirect order: right after the article at key (mostly soon after its target, a
    # quarter much later, some before it); key -1 = before the first article.
    keys = array.array("i", bytes(4 * R))
    for r in range(R):
        x = rng.random()
        t = rtarget[r]
        if x < 0.6:
            k = t + rng.randint(0, 3)
        elif x < 0.85:
            k = t + rng.randint(4, 3000)
        else:
            k = t - rng.randint(1, 3000)
        keys[r] = min(max(k, -1), N - 1)
    order = sorted(range(R), key=keys.__getitem__)
    t_prep = time.monotonic() - t0

    # --- the page loop ---
    out = sys.stdout.buffer if a.out == "-" else open(a.out, "wb")
    getrandbits = rng.getrandbits
    red_thr = int(a.red_fraction * (1 << 20))
    red_seen = bytearray(npool)
    n_red_links = 0
    n_blue_distinct = 0
    n_links = 0
    text_bytes = 0
    xml_bytes = 0
    pages = 0
    cat_used = bytearray(ncat)
    buf = []
    buf_len = 0
    page_id = 10
    rev_base = 1_000_000_000
    CHUNK = 8 << 20
    pos = 0  # next index into order

    def emit(title, text, redirect_to):
        nonlocal page_id, buf_len, text_bytes, pages
        tb = text.encode()
        x = getrandbits(40)
        year = 2002 + x % 23
        ts = f"{year}-{(x >> 5) % 12 + 1:02d}-{(x >> 9) % 28 + 1:02d}T{(x >> 14) % 24:02d}:{(x >> 19) % 60:02d}:{(x >> 25) % 60:02d}Z"
        rev = rev_base + page_id * 3 + (x >> 31) % 3
        if (x >> 33) % 10 == 0:
            contrib = f"        <ip>192.0.2.{(x >> 20) % 250 + 1}</ip>\n"
        else:
            contrib = f"        <username>{users[(x >> 8) % len(users)]}</username>\n        <id>{(x >> 3) % 4_000_000 + 1}</id>\n"
        comment = COMMENTS[(x >> 36) % len(COMMENTS)]
        comment = f"      <comment>{xml_escape(comment)}</comment>\n" if comment else ""
        rd = f'    <redirect title="{xml_escape(redirect_to)}" />\n' if redirect_to is not None else ""
        s = (f"  <page>\n    <title>{xml_escape(title)}</title>\n    <ns>0</ns>\n    <id>{page_id}</id>\n{rd}"
             f"    <revision>\n      <id>{rev}</id>\n      <parentid>{rev - 1 - (x >> 12) % 5000}</parentid>\n"
             f"      <timestamp>{ts}</timestamp>\n      <contributor>\n{contrib}      </contributor>\n{comment}"
             f"      <origin>{rev}</origin>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
             f'      <text bytes="{len(tb)}" xml:space="preserve">{xml_escape(text)}</text>\n'
             f"      <sha1>{sha1_base36(tb)}</sha1>\n    </revision>\n  </page>\n").encode()
        buf.append(s)
        buf_len += len(s)
        text_bytes += len(tb)
        pages += 1
        page_id += 1 + (x >> 38)  # ids with gaps, as in real dumps
        if buf_len >= CHUNK:
            flush()

    def flush():
        nonlocal buf_len, xml_bytes
        data = b"".join(buf)
        out.write(data)
        xml_bytes += len(data)
        buf.clear()
        buf_len = 0

    # Templates called (all missing from the dump), by their page names.
    called = set()

    def calls(names):
        for name in names:
            called.add(name[:1].upper() + name[1:])

    def emit_redirect(r):
        t = arts[rtarget[r]]
        tmpl = RTEMPLATES[getrandbits(8) % len(RTEMPLATES)]
        # Only the outer call: a missing template's arguments are never expanded.
        calls(re.findall(r"^\{\{([^|}\n]+)", tmpl))
        text = f"#REDIRECT [[{t}]]\n\n{tmpl}" if tmpl else f"#REDIRECT [[{t}]]"
        emit(rtitles[r], text, t)

    head = header().encode()
    out.write(head)
    xml_bytes += len(head)

    while pos < R and keys[order[pos]] < 0:
        emit_redirect(order[pos])
        pos += 1
    nfr = len(frags)
    # links per block: the lead and each section get a share of the L links
    blocks = S + 1
    per_block = [L // blocks + (1 if b < L % blocks else 0) for b in range(blocks)]
    for i in range(N):
        title = arts[i]
        parts = []
        ap = parts.append
        y = getrandbits(32)
        ap("{{Short description|" + sdescs[y % 512] + "}}\n")
        calls(("Short description", "Reflist"))
        if (y >> 9) % 10 < 3:
            calls(("Infobox " + INFOBOXES[(y >> 12) % len(INFOBOXES)],))
            ap("{{Infobox " + INFOBOXES[(y >> 12) % len(INFOBOXES)] + "\n| name = " + title +
               "\n| established = " + str(1700 + (y >> 16) % 320) +
               "\n| region = " + REGIONS[(y >> 20) % len(REGIONS)].replace("-", " ") + "\n}}\n")
        ap("'''" + title + "''' is ")
        targets = set()
        sent = 0
        for b in range(blocks):
            if b:
                ap("\n\n== " + HEADINGS[(getrandbits(16) * 7 + b) % len(HEADINGS)] + " ==\n")
                sent = 0
            first = b > 0
            for _ in range(per_block[b]):
                x = getrandbits(64)
                z = getrandbits(32)
                # text before the link
                if first:
                    ap(frags_cap[z % nfr])
                    first = False
                else:
                    ap(frags[z % nfr])
                ap(" ")
                u = (x >> 20) & 0xFFFFFFFF
                if (x & 0xFFFFF) < red_thr:
                    k = (u * npool) >> 32
                    red_seen[k] = 1
                    n_red_links += 1
                    t = red[k]
                else:
                    sel = (x >> 52) & 0xFF
                    if sel < 20 and R:  # 8 %: a redirect
                        k = (u * R) >> 32
                        t = rtitles[k]
                        tid = N + k
                    else:
                        if sel < 100:  # nearby article (topic cluster)
                            k = i + ((u * 10001) >> 32) - 5000
                            k = k % N
                        elif sel < 180:  # popular (power law)
                            f = u / 4294967296.0
                            k = int(f * f * f * N)
                        else:
                            k = (u * N) >> 32
                        if k == i:  # no self-links
                            k = (k + 1) % N
                        t = arts[k]
                        tid = k
                    targets.add(tid)
                form = (x >> 60) | ((z >> 28) << 4)  # 8 bits
                if form < 64:
                    ap("[[" + lcfirst(t) + "]]")
                elif form < 112:
                    p = t.find(" (")
                    disp = t[:p] if p > 0 else t
                    ap("[[" + t + "|" + (lcfirst(disp) if form & 1 else disp) + "]]")
                elif form < 124:
                    ap("[[" + t + "]]s")
                elif form < 127:
                    ap("[[" + t.replace(" ", "_") + "]]")
                elif form < 134:
                    ap("[[" + t + "#" + HEADINGS[form % len(HEADINGS)] + "|" + lcfirst(t) + "]]")
                else:
                    ap("[[" + t + "]]")
                n_links += 1
                sent += 1
                zz = (z >> 12) & 0xFF
                if sent >= 3 and zz < 96:
                    sent = 0
                    if zz < 27:
                        calls(("cite web",))
                        ap(".<ref>{{cite web |url=https://www.example.org/" + str(z & 0xFFFFF) +
                           " |title=" + sdescs[(z >> 3) % 512] + " |publisher=" + titles.places[z % 6000] +
                           " Gazette |date=" + str(1990 + zz % 34) + " |access-date=2023-0" + str(1 + zz % 9) + "-1" +
                           str(zz % 10) + "}}</ref> ")
                    elif zz < 33:
                        ap(".<ref name=\"n" + str(zz) + "\" /> ")
                    else:
                        ap(". ")
                    first = True
                else:
                    ap(" ")
            ap((frags_cap if first else frags)[(y + b * 977) % nfr] + ".")
        targets.discard(i)
        n_blue_distinct += len(targets)
        ap("\n\n== References ==\n{{Reflist}}\n")
        if y % 7 == 0:
            ap("\n== External links ==\n* [https://www.example.org/" + str(y) + " Official website]\n")
        if (y >> 4) % 5 == 0:
            ap("\n{{DEFAULTSORT:" + title + "}}")
        cs = set()
        for c in range(a.categories):
            k = getrandbits(32) % ncat
            while k in cs:
                k = (k + 1) % ncat
            cs.add(k)
            cat_used[k] = 1
            ap("\n[[Category:" + cats[k] + "]]")
        if (y >> 6) % 4 == 0:
            calls((STUBS[(y >> 8) % len(STUBS)],))
            ap("\n\n{{" + STUBS[(y >> 8) % len(STUBS)] + "}}")
        emit(title, "".join(parts), None)
        while pos < R and keys[order[pos]] <= i:
            emit_redirect(order[pos])
            pos += 1
    flush()
    tail = b"</mediawiki>\n"
    out.write(tail)
    xml_bytes += len(tail)
    out.flush()
    if out is not sys.stdout.buffer:
        out.close()
    secs = time.monotonic() - t0
    stats = {
        "generator": f"gen-enwiki-shape v{VERSION}",
        "args": {"articles": N, "links": L, "red_fraction": a.red_fraction,
                 "red_pool": a.red_pool, "redirects_per_article": a.redirects_per_article,
                 "categories": a.categories, "sections": S, "seed": a.seed},
        "pages": pages,
        "articles": N,
        "redirects": R,
        "links_written": n_links,
        "red_links_written": n_red_links,
        "blue_pairs": n_blue_distinct,
        "expected_index_links": n_blue_distinct + R,
        "red_targets": sum(red_seen),
        "red_templates": len(called),
        "categories": sum(cat_used),
        "xml_bytes": xml_bytes,
        "text_bytes": text_bytes,
        "xml_bytes_per_page": round(xml_bytes / pages, 1),
        "seconds": round(secs, 2),
        "prep_seconds": round(t_prep, 2),
        "mb_per_s": round(xml_bytes / 1e6 / secs, 1),
    }
    sys.stderr.write(json.dumps(stats) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
