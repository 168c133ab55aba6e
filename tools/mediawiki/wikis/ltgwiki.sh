# The Latgalian Wikipedia of 2017 (tools/mediawiki/setup ltgwiki): the reference of
# tests/data/expand-mw. Shell variables read by setup, serve and record-*.
dump=ltgwiki-2017-complete.xml.bz2
dbname=ltgwiki
lang=ltg
sitename=Vikipedeja
# wikiwit's build date for this dump: its newest template, module or message revision.
now=20170813031218
port=8139
dir=/tmp/wikiwit-mw
fixtures=tests/data/expand-mw
# record-expansions: the first 4 distinct calls of each template or module.
per_template=4
