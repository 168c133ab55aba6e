<?php
/**
 * MediaWiki's own cost of rendering articles: parses each article of a reference wiki
 * (tools/mediawiki/setup) as a page view does — a fresh Parser, anonymous canonical
 * options, no parser cache — and prints the CPU seconds each took, as JSON lines, then
 * a total. Run by tools/mediawiki/parse-cost, which chooses the Scribunto engine
 * (WIKIWIT_MW_ENGINE) and the articles.
 *
 * CPU is getrusage() of this process and of its reaped children, read around each parse:
 * with LuaStandalone the Lua interpreter is a child process, ended (and so counted) by
 * resetting the parser's Scribunto engine after the parse. The parser's own limit report
 * (its CPU time, which leaves out that child, and Scribunto's Lua time) is printed too.
 *
 * Usage: php tools/mediawiki/parse-cost.php --conf DIR/LocalSettings.php [--titles FILE]
 *        [--repeat N]
 */

use MediaWiki\Extension\Scribunto\Scribunto;
use MediaWiki\MediaWikiServices;

$IP = getenv( 'MW_INSTALL_PATH' ) ?: '/usr/share/mediawiki';
require_once "$IP/maintenance/Maintenance.php";

class WikiwitParseCost extends Maintenance {
	public function __construct() {
		parent::__construct();
		$this->addDescription( 'CPU seconds MediaWiki spends parsing articles' );
		$this->addOption( 'titles', 'File of titles, one a line (default: every article)',
			false, true );
		$this->addOption( 'repeat', 'Parse the list this many times; report the fastest run',
			false, true );
	}

	/** User + system seconds of this process and of its reaped children. */
	private static function cpu(): array {
		$self = getrusage( 0 );
		$children = getrusage( 1 );
		$sec = static function ( array $r ): float {
			return $r['ru_utime.tv_sec'] + $r['ru_utime.tv_usec'] / 1e6
				+ $r['ru_stime.tv_sec'] + $r['ru_stime.tv_usec'] / 1e6;
		};
		return [ $sec( $self ), $sec( $children ) ];
	}

	/** The articles: the file's titles, or every non-redirect main-namespace page in
	 * page id order (the dump's order on import) but the installer's Main Page. */
	private function titles(): array {
		$file = $this->getOption( 'titles' );
		if ( $file !== null ) {
			$lines = array_map( 'trim', file( $file ) );
			return array_values( array_filter( $lines, static function ( $l ) {
				return $l !== '' && $l[0] !== '#';
			} ) );
		}
		$dbr = $this->getDB( DB_REPLICA );
		$res = $dbr->select( 'page', 'page_title',
			[ 'page_namespace' => 0, 'page_is_redirect' => 0, 'page_title != ' . $dbr->addQuotes( 'Main_Page' ) ],
			__METHOD__,
			[ 'ORDER BY' => 'page_id' ] );
		$out = [];
		foreach ( $res as $row ) {
			$out[] = strtr( $row->page_title, '_', ' ' );
		}
		return $out;
	}

	/** Parses one article; returns its row. */
	private function parseOne( string $name ): array {
		$services = MediaWikiServices::getInstance();
		$title = Title::newFromText( $name );
		$page = $services->getWikiPageFactory()->newFromTitle( $title );
		$content = $page->getContent();
		if ( !$content ) {
			$this->fatalError( "no such article: $name" );
		}
		$options = ParserOptions::newFromAnon();
		$parser = $services->getParserFactory()->create();
		[ $self0, $child0 ] = self::cpu();
		$wall0 = microtime( true );
		$output = $parser->parse( $content->getText(), $title, $options, true, true,
			$page->getLatest() );
		Scribunto::resetParserEngine( $parser );
		[ $self1, $child1 ] = self::cpu();
		$report = $output->getLimitReportData();
		return [
			'title' => $name,
			'cpu' => round( $self1 - $self0 + $child1 - $child0, 4 ),
			'php' => round( $self1 - $self0, 4 ),
			'lua_child' => round( $child1 - $child0, 4 ),
			'wall' => round( microtime( true ) - $wall0, 4 ),
			'limitreport_cpu' => $report['limitreport-cputime'] ?? null,
			'lua_time' => $report['scribunto-limitreport-timeusage'] ?? null,
		];
	}

	public function execute() {
		$engine = $GLOBALS['wgScribuntoDefaultEngine'];
		$titles = $this->titles();
		$best = null;
		$repeat = max( 1, (int)$this->getOption( 'repeat', 1 ) );
		for ( $run = 1; $run <= $repeat; $run++ ) {
			$rows = [];
			foreach ( $titles as $name ) {
				$rows[] = $this->parseOne( $name );
			}
			$total = array_sum( array_column( $rows, 'cpu' ) );
			if ( $best === null || $total < $best[0] ) {
				$best = [ $total, $rows ];
			}
		}
		foreach ( $best[1] as $row ) {
			$this->output( json_encode( $row, JSON_UNESCAPED_UNICODE ) . "\n" );
		}
		$this->output( json_encode( [
			'engine' => $engine,
			'articles' => count( $titles ),
			'runs' => $repeat,
			'cpu' => round( $best[0], 3 ),
			'php' => round( array_sum( array_column( $best[1], 'php' ) ), 3 ),
			'lua_child' => round( array_sum( array_column( $best[1], 'lua_child' ) ), 3 ),
			'wall' => round( array_sum( array_column( $best[1], 'wall' ) ), 3 ),
		] ) . "\n" );
	}
}

$maintClass = WikiwitParseCost::class;
require_once RUN_MAINTENANCE_IF_MAIN;
