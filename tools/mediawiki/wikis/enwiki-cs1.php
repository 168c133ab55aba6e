<?php
# English Wikipedia as Wikimedia serves it (tools/mediawiki/wikis/enwiki-cs1.sh), with
# the namespaces of MediaWiki core and Scribunto only, as the oracle's wiki
# (../shared/oracle/enwiki-2016-206pages-cs1: `{{Portal:…}}` is a template there).
# The installer names the project namespace after the sitename: Wikipedia.

$wgServer = '//en.wikipedia.org';
$wgCanonicalServer = 'https://en.wikipedia.org';

# Wikimedia runs the CLDR extension: language names in every language
# (`mw.language.fetchLanguageName('fr', 'en')` is `French`; without it CS1 finds no
# language for `language=French`). tools/mediawiki/setup extracts its REL1_39 into the
# wiki's directory (CLDR_GIT: a clone of wikimedia/mediawiki-extensions-cldr).
wfLoadExtension( 'cldr', __DIR__ . '/cldr/extension.json' );
