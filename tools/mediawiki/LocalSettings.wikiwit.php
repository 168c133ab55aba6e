<?php
# Appended, after the settings of one wiki of tools/mediawiki/wikis/ (its URLs and
# namespaces), to the LocalSettings.php that maintenance/install.php writes
# (tools/mediawiki/setup): what every reference wiki of `wikiwit expand` shares.

$wgLocaltimezone = 'UTC';
date_default_timezone_set( 'UTC' );
$wgScriptPath = '/w';
$wgArticlePath = '/wiki/$1';
$wgResourceBasePath = '/w';
$wgStylePath = '/w/skins';

# Wikimedia's limit (MediaWiki's default is 100); wikiwit uses Wikimedia's.
$wgExpensiveParserFunctionLimit = 500;

wfLoadExtension( 'ParserFunctions' );
$wgPFEnableStringFunctions = false;
wfLoadExtension( 'Cite' );
wfLoadExtension( 'Scribunto' );
# LuaStandalone on Debian's lua5.1 records the fixtures; WIKIWIT_MW_ENGINE=luasandbox
# (php-luasandbox, Wikipedia's engine) is what tools/mediawiki/parse-cost also times.
$wgScribuntoDefaultEngine = getenv( 'WIKIWIT_MW_ENGINE' ) ?: 'luastandalone';
$wgScribuntoEngineConf['luastandalone']['luaPath'] = '/usr/bin/lua5.1';

# The pinned "now" of {{CURRENTYEAR}}, {{#time:}} without a date and the parser's
# timestamp: wikiwit's build date for the wiki's dump ($wikiwitNow, set by the wiki's
# profile). WIKIWIT_MW_NOW overrides it. PHP's own clock (relative dates such as
# `today + 2 days`, Lua's os.time()) is pinned by tools/mediawiki/serve with libfaketime.
Wikimedia\Timestamp\ConvertibleTimestamp::setFakeTime( getenv( 'WIKIWIT_MW_NOW' ) ?: $wikiwitNow );

$wgShowExceptionDetails = true;
$wgParserCacheType = CACHE_NONE;
