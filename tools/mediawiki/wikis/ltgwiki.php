<?php
# ltgwiki as Wikimedia served it in 2017 (tools/mediawiki/wikis/ltgwiki.sh).

# URLs as Wikimedia serves ltgwiki: {{fullurl:}}, {{SERVER}}, {{localurl:}}.
$wgServer = '//ltg.wikipedia.org';
$wgCanonicalServer = 'https://ltg.wikipedia.org';

# The dump's <siteinfo> namespaces.
$wgMetaNamespace = 'Vikipedeja';
$wgMetaNamespaceTalk = 'Vikipedejis_sprīža';
$wgExtraNamespaces[828] = 'Modulis';
$wgExtraNamespaces[829] = 'Moduļa_diskusija';
