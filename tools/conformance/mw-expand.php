<?php
/**
 * Expands wikitext as MediaWiki's action=expandtemplates does, for the conformance
 * harnesses' --mediawiki mode: one JSON request {"title", "text"} a line on standard
 * input, one JSON answer {"text"} a line on standard output. Each request gets a parser
 * of its own, and so a Scribunto engine of its own, as each `wikiwit expand` process has.
 *
 * Usage: php mw-expand.php --conf LocalSettings.php
 */

use MediaWiki\MediaWikiServices;

require_once getenv( 'MW_INSTALL_PATH' ) !== false
	? getenv( 'MW_INSTALL_PATH' ) . '/maintenance/Maintenance.php'
	: '/usr/share/mediawiki/maintenance/Maintenance.php';

class WikiwitExpand extends Maintenance {
	public function execute() {
		$factory = MediaWikiServices::getInstance()->getParserFactory();
		while ( ( $line = fgets( STDIN ) ) !== false ) {
			$request = json_decode( $line, true );
			$parser = $factory->create();
			$title = Title::newFromText( $request['title'] );
			$text = $parser->preprocess( $request['text'], $title, ParserOptions::newFromAnon() );
			echo json_encode( [ 'text' => $text ], JSON_INVALID_UTF8_SUBSTITUTE ) . "\n";
			flush();
		}
	}
}

$maintClass = WikiwitExpand::class;
require_once RUN_MAINTENANCE_IF_MAIN;
