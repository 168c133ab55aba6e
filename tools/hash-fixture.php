<?php
// Writes tests/data/scribunto/hash-php.jsonl: PHP's hash() of a few inputs under every
// algorithm of hash_algos(), in its order, for mw.hash's test (src/expand/scribunto/hash.rs).
// Usage: php tools/hash-fixture.php > tests/data/scribunto/hash-php.jsonl
$inputs = [
	'',
	'abc',
	'The quick brown fox jumps over the lazy dog',
	"\x00\xff\x80 é€𝄞",
	str_repeat( '0123456789', 100 ) . 'tail',
];
foreach ( hash_algos() as $algo ) {
	foreach ( $inputs as $input ) {
		echo json_encode( [ 'algo' => $algo, 'input' => bin2hex( $input ), 'hash' => hash( $algo, $input ) ],
			JSON_UNESCAPED_SLASHES ), "\n";
	}
}
