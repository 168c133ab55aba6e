<?php
// Reads gen.lua's lines on stdin and writes the fixture on stdout: each case with what
// MediaWiki 1.39's Scribunto answers, computed by Scribunto's own TextLibrary
// (reindexArrays) and MediaWiki's FormatJson as installed, on this php-cli.
// Argument: the MediaWiki directory (Debian: /usr/share/mediawiki).
$mw = $argv[1];
$lib = "$mw/extensions/Scribunto/includes/engines/LuaCommon";
require "$lib/LibraryBase.php";
require "$lib/TextLibrary.php";
require "$mw/includes/json/FormatJson.php";

// FormatJson::parse reports through Status and wfMessage; these stand-ins give the
// English texts of MediaWiki's messages.
$messages = json_decode( file_get_contents( "$mw/languages/i18n/en.json" ), true );
class Message {
	public function __construct( public string $text ) {
	}
	public function numParams( ...$p ) {
		return $this;
	}
	public function text() {
		return $this->text;
	}
}
function wfMessage( $key ) {
	global $messages;
	return new Message( $messages[$key] );
}
class Status {
	public $ok;
	public $value;
	public $message;
	public static function newGood( $v ) {
		$s = new Status();
		$s->ok = true;
		$s->value = $v;
		return $s;
	}
	public static function newFatal( $key ) {
		$s = new Status();
		$s->ok = false;
		$s->message = is_string( $key ) ? wfMessage( $key ) : $key;
		return $s;
	}
	public function warning( $m ) {
	}
	public function isOk() {
		return $this->ok;
	}
	public function getValue() {
		return $this->value;
	}
	public function getMessage() {
		return $this->message;
	}
}

// A Lua number as Scribunto hands it to PHP: integral values within 64 bits as int.
function fromLuaNumber( $n ) {
	$f = (float)$n['n'];
	if ( is_finite( $f ) && floor( $f ) == $f && $f >= -9.2233720368547758e18 && $f < 9.2233720368547758e18 ) {
		return (int)$f;
	}
	return $f;
}

function fromLua( $v ) {
	if ( !is_array( $v ) ) {
		return $v;
	}
	if ( isset( $v['n'] ) ) {
		return fromLuaNumber( $v );
	}
	if ( isset( $v['s'] ) ) {
		return hex2bin( $v['s'] );
	}
	$a = [];
	foreach ( $v['a'] as [ $k, $x ] ) {
		if ( isset( $k['n'] ) ) {
			$key = fromLuaNumber( $k );
			$key = is_int( $key ) ? $key : $k['lua'];
		} else {
			$key = hex2bin( $k['s'] );
		}
		$a[$key] = fromLua( $x );
	}
	return $a;
}

// A PHP value as Lua receives it: null entries dropped, numbers as text that reads back
// to the same double.
function toLua( $v ) {
	if ( is_int( $v ) ) {
		return [ 'n' => (string)$v ];
	} elseif ( is_float( $v ) ) {
		return [ 'n' => is_nan( $v ) ? 'nan' : ( is_infinite( $v ) ? ( $v > 0 ? 'inf' : '-inf' ) : json_encode( $v ) ) ];
	} elseif ( is_string( $v ) ) {
		return [ 's' => bin2hex( $v ) ];
	} elseif ( is_array( $v ) ) {
		$out = [];
		foreach ( $v as $k => $x ) {
			if ( $x !== null ) {
				$out[] = [ toLua( $k ), toLua( $x ) ];
			}
		}
		return [ 'a' => $out ];
	}
	return $v;
}

while ( ( $line = fgets( STDIN ) ) !== false ) {
	$c = json_decode( $line, true, 10000 );
	$flags = $c['flags'];
	if ( $c['op'] === 'encode' ) {
		$v = fromLua( $c['value'] );
		if ( !( $flags & 1 ) && is_array( $v ) ) {
			$v = Scribunto_LuaTextLibrary::reindexArrays( $v, true );
		}
		$json = FormatJson::encode( $v, (bool)( $flags & 4 ), FormatJson::ALL_OK );
		$out = [ 'op' => 'encode', 'flags' => $flags, 'expr' => hex2bin( $c['expr'] ) ];
		if ( $json === false ) {
			$out['error'] = 'mw.text.jsonEncode: Unable to encode value';
		} else {
			$out['json'] = $json;
		}
	} else {
		$text = hex2bin( $c['text'] );
		$opts = FormatJson::FORCE_ASSOC | ( $flags & 2 ? FormatJson::TRY_FIXING : 0 );
		$status = FormatJson::parse( $text, $opts );
		$out = [ 'op' => 'decode', 'flags' => $flags, 'text' => $c['text'] ];
		if ( !$status->isOk() ) {
			$out['error'] = 'mw.text.jsonDecode: ' . $status->getMessage()->text();
		} else {
			$v = $status->getValue();
			if ( !( $flags & 1 ) && is_array( $v ) ) {
				$v = Scribunto_LuaTextLibrary::reindexArrays( $v, false );
			}
			$out['value'] = toLua( $v );
		}
	}
	echo json_encode( $out, JSON_UNESCAPED_SLASHES ), "\n";
}
