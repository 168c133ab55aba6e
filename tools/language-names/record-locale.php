<?php
// Writes src/expand/data/locale.tsv: what MediaWiki 1.39 formats dates,
// numbers and durations with, per language (`mw.language:formatDate`, `formatNum`,
// `formatDuration`, `{{#time:…|lang}}`), read from a running MediaWiki so that its
// fallback chains and ICU's number formats are applied as MediaWiki applies them.
// For `en`, then each language MediaWiki has messages for, sorted: a line `=CODE`, then
//   num<TAB>decimal<TAB>group<TAB>primary<TAB>secondary<TAB>minimum<TAB>digits<TAB>grouped digits
// (the separators `formatNum` writes, the grouping sizes of the language's ICU number
// format, `minimumGroupingDigits`, the ten digits `formatNumNoSeparators` writes (its
// digitTransformTable) and those `formatNum` writes (ICU's own digits for a few
// languages), each empty for 0–9), then
//   key<TAB>text
// for each message of KEYS whose text, in that language, differs from English's (all of
// them for `en`); a backslash, tab and newline in a field are written `\\`, `\t`, `\n`. The messages are MediaWiki's localisation (GPL-2.0-or-later, by
// MediaWiki's and translatewiki.net's translators); see data/README.md.
//
// Usage (any installed wiki's settings; tools/mediawiki/setup installs one):
//   php tools/language-names/record-locale.php --conf LocalSettings.php > src/expand/data/locale.tsv

require_once '/usr/share/mediawiki/maintenance/Maintenance.php';

use MediaWiki\MediaWikiServices;

class RecordLocale extends Maintenance {
    private const MONTHS = [ 'january', 'february', 'march', 'april', 'may', 'june', 'july',
        'august', 'september', 'october', 'november', 'december' ];
    private const DAYS = [ 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday',
        'saturday' ];
    private const DURATIONS = [ 'seconds', 'minutes', 'hours', 'days', 'weeks', 'years',
        'decades', 'centuries', 'millennia' ];

    /** The messages recorded: names `sprintfDate` writes and what `formatDuration` joins. */
    private function keys(): array {
        $keys = [];
        foreach ( self::MONTHS as $m ) {
            $keys[] = $m === 'may' ? 'may_long' : $m;
            $keys[] = "$m-gen";
            $keys[] = substr( $m, 0, 3 );
        }
        foreach ( self::DAYS as $d ) {
            $keys[] = $d;
            $keys[] = substr( $d, 0, 3 );
        }
        foreach ( self::DURATIONS as $d ) {
            $keys[] = "duration-$d";
        }
        return array_merge( $keys, [ 'and', 'comma-separator', 'word-separator' ] );
    }

    /** The `num` fields of `$lang`, as its formatNum writes numbers. */
    private function number( Language $lang ): array {
        $method = new ReflectionMethod( Language::class, 'getNumberFormatter' );
        $method->setAccessible( true );
        $fmt = $method->invoke( $lang );
        $sep = $lang->separatorTransformTable() ?: [];
        $decimal = $sep['.'] ?? $fmt->getSymbol( NumberFormatter::DECIMAL_SEPARATOR_SYMBOL );
        $group = $sep[','] ?? $fmt->getSymbol( NumberFormatter::GROUPING_SEPARATOR_SYMBOL );
        $plain = $lang->formatNumNoSeparators( '0123456789' );
        $grouped = str_replace( $group, '', $lang->formatNum( '0123456789' ) );
        if ( mb_strlen( $plain ) !== 10 || mb_strlen( $grouped ) !== 10 ) {
            $this->fatalError( "{$lang->getCode()}: digits $plain, $grouped" );
        }
        return [ 'num', $decimal, $group, $fmt->getAttribute( NumberFormatter::GROUPING_SIZE ),
            $fmt->getAttribute( NumberFormatter::SECONDARY_GROUPING_SIZE ),
            $lang->minimumGroupingDigits() ?? 0, $plain === '0123456789' ? '' : $plain,
            $grouped === '0123456789' ? '' : $grouped ];
    }

    /** A field with its backslashes, tabs and newlines escaped (a few translations hold a tab). */
    private function escape( $field ): string {
        return strtr( (string)$field, [ '\\' => '\\\\', "\t" => '\\t', "\n" => '\\n' ] );
    }

    public function execute() {
        $services = MediaWikiServices::getInstance();
        $codes = array_keys( $services->getLanguageNameUtils()->getLanguageNames(
            MediaWiki\Languages\LanguageNameUtils::AUTONYMS,
            MediaWiki\Languages\LanguageNameUtils::SUPPORTED ) );
        sort( $codes, SORT_STRING );
        $codes = array_merge( [ 'en' ], array_diff( $codes, [ 'en' ] ) );
        $english = [];
        foreach ( $codes as $code ) {
            $lang = $services->getLanguageFactory()->getLanguage( $code );
            $lines = [ $this->number( $lang ) ];
            foreach ( $this->keys() as $key ) {
                $text = wfMessage( $key )->inLanguage( $lang )->plain();
                if ( $code === 'en' ) {
                    $english[$key] = $text;
                } elseif ( $text === $english[$key] ) {
                    continue;
                }
                $lines[] = [ $key, $text ];
            }
            echo "=$code\n";
            foreach ( $lines as $fields ) {
                echo implode( "\t", array_map( [ $this, 'escape' ], $fields ) ), "\n";
            }
        }
    }
}

$maintClass = RecordLocale::class;
require_once RUN_MAINTENANCE_IF_MAIN;
