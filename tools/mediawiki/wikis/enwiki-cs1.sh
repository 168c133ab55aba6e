# 206 enwiki pages of 2016 with English Wikipedia's citation toolkit of 2024
# (tools/mediawiki/setup enwiki-cs1): the reference of tests/data/expand-cs1, installed as
# the wiki of ../shared/oracle/enwiki-2016-206pages-cs1 was. Read by setup, serve, record-*.
dump=enwiki-2016-206pages-cs1.xml.bz2
dbname=enwiki
lang=en
sitename=Wikipedia
# wikiwit's build date for this dump: its newest template, module or message revision
# (`wikiwit info --json`: build.build_date 2024-06-19T00:00:00Z).
now=20240619000000
port=8140
dir=/tmp/wikiwit-mw-en
fixtures=tests/data/expand-cs1
# setup extracts this branch of the CLDR extension (from the git directory CLDR_GIT) into
# DIR/cldr, which wikis/enwiki-cs1.php loads.
cldr=refs/heads/REL1_39
# record-expansions: the first 4 distinct calls of each template or module, then the
# calls that exercise a parameter, date format, link or markup the template's calls so
# far have not (twice), up to 4 + 2 × √(its calls) per template (cite web: 90 of 1,862).
per_template=4
cover=2
