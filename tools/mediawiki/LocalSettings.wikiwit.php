<?php
# Appended to the LocalSettings.php that maintenance/install.php writes: the wiki is set
# up like ltgwiki in 2017 (tools/mediawiki/setup), the reference for `wikiwit expand`.

# URLs as Wikimedia serves ltgwiki: {{fullurl:}}, {{SERVER}}, {{localurl:}}.
$wgServer = '//ltg.wikipedia.org';
$wgCanonicalServer = 'https://ltg.wikipedia.org';
$wgScriptPath = '/w';
$wgArticlePath = '/wiki/$1';
$wgResourceBasePath = '/w';
$wgStylePath = '/w/skins';
$wgLocaltimezone = 'UTC';
date_default_timezone_set( 'UTC' );

# The dump's <siteinfo> namespaces.
$wgMetaNamespace = 'Vikipedeja';
$wgMetaNamespaceTalk = 'Vikipedejis_sprīža';
$wgExtraNamespaces[828] = 'Modulis';
$wgExtraNamespaces[829] = 'Moduļa_diskusija';

# Wikimedia's limit (MediaWiki's default is 100); wikiwit uses Wikimedia's.
$wgExpensiveParserFunctionLimit = 500;

wfLoadExtension( 'ParserFunctions' );
$wgPFEnableStringFunctions = false;
wfLoadExtension( 'Cite' );
wfLoadExtension( 'Scribunto' );
$wgScribuntoDefaultEngine = 'luastandalone';
$wgScribuntoEngineConf['luastandalone']['luaPath'] = '/usr/bin/lua5.1';

# The pinned "now" of {{CURRENTYEAR}}, {{#time:}}, os.time(): wikiwit's build date for
# this dump (its newest revision, 2017-08-13T03:12:18Z). WIKIWIT_MW_NOW overrides it.
Wikimedia\Timestamp\ConvertibleTimestamp::setFakeTime(
	getenv( 'WIKIWIT_MW_NOW' ) ?: '20170813031218'
);

$wgShowExceptionDetails = true;
$wgParserCacheType = CACHE_NONE;
