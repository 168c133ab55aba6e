<?php
# English Wikipedia as Wikimedia serves it (tools/mediawiki/wikis/enwiki-cs1.sh), with
# the namespaces of MediaWiki core and Scribunto only, as the oracle's wiki
# (../shared/oracle/enwiki-2016-206pages-cs1: `{{Portal:…}}` is a template there).
# The installer names the project namespace after the sitename: Wikipedia.

$wgServer = '//en.wikipedia.org';
$wgCanonicalServer = 'https://en.wikipedia.org';
