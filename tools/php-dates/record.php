<?php
// Records what PHP's date reader makes of several hundred date strings, for the
// differential test tests/php_dates.rs (wikiwit reads dates with the same timelib that
// PHP bundles; this pins that it does so exactly, at a pinned "now").
//
// Usage: php tools/php-dates/record.php > tests/data/php-dates/strtotime.jsonl
// Each line: {"in": <string>, "now": <unix seconds>, "out": <unix seconds> | null},
// every input at two pinned "now"s, where null means
// `new DateTime($in, new DateTimeZone('UTC'))` throws (what makes `{{#time}}` answer
// "Error: Invalid time." and `mw.language:formatDate` raise).
//
// "now" is 2024-06-19T00:00:00Z, the build time of the cs1 test dump, and the clock the
// recorded MediaWiki cases ran under (tools/mediawiki/serve pins it with libfaketime),
// and 2017-09-20T13:45:30Z (the unit tests' clock: a time of day that is not midnight).
// PHP's `strtotime($s, $now)` runs the same parse and hole filling as the DateTime
// constructor, with an explicit base instead of the clock.

date_default_timezone_set('UTC');
const NOWS = [1718755200, 1505915130];

$bases = [
    'now', 'today', 'tomorrow', 'yesterday', 'midnight', 'noon', '2020-05-01',
    '2020-05-01 12:30', '2020-05-01T12:30:45Z', '2020-05-01T12:30:45+02:00', '1 May 2020',
    'May 1, 2020', 'May 2020', '1May', '1May2020', '1 May', 'May 1', '2020', '1988-02-28',
    '29 February 2021', '31 April 2020', '2020-02-30', '20200501', '20200501123045',
    '@0', '@-86400', '@1718755200', '12/25/2020', '25.12.2020', '25-12-2020', '2020/12/25',
    'December 25', 'Dec 25 2020', 'Sat, 25 Dec 2020 10:00:00 +0100', 'first monday of may 2020',
    'last day of next month', 'first day of this month', 'last day of february', 'next monday',
    'last friday', 'this sunday', 'monday next week', 'saturday this week', '10 September 2000 UTC',
    '2020-05-01 Europe/Paris', '2020-05-01 12:00 America/New_York', '2020-05-01 12:00 EST',
    '2020-05-01 12:00 CEST', '2020-05-01 12:00 PST', '2020-05-01 12:00 GMT+2', 'Europe/London',
    '12:00 Asia/Kolkata', 'noon tomorrow', 'tomorrow noon', 'midnight +1 week', '3pm', '3:15 p.m.',
    '15:60', '24:00', '2020-W18', '2020-W18-3', '2020.123', 'back of 7pm', 'front of 7pm',
    'yesterday 14:00', '0000-01-01', '9999-12-31', '10000-01-01', '-0001-12-31', '1 January 10000',
    'January 1, 0001', '1 AD', '44 BC', 'c. 1900', '1900s', 'mid-2020', 'Spring 2020', '2020-05',
    'May 32, 2020', 'Februray 3 2020', '3 Febr 2020', 'sept 5 2019', 'Sept. 5, 2019', '5. Mai 2019',
    'foo', '', ' ', '+', '-1', '1', '12', '123', '12345', '123456', '1234567', '99999999999999',
    '2020-05-01 + 1 day', 'today + 2 days', 'today+2days', '+1 week 2 days 4 hours 2 seconds',
    '-1 month', '2 weeks ago', '1 year ago', 'next year', 'last month', 'third day', 'eighth week',
    'twelfth month', '+1 fortnight', '1 weekday', '5 weekdays ago', '+1.5 days', 'day after tomorrow',
    'now UTC', 'now Z', 'now +00:00', '00:00:00.5', '2020-05-01 00:00:00.123456', 'T12:00',
    '2020-05-01 foo', '2020-05-01garbage', 'May 1st, 2020', '1st May 2020', 'the 1st of May',
    'Wednesday', 'Wed', 'wed 2020-05-06', '2020-05-01 (Friday)', '(2020)', '2020 (approx)',
    "2020-05-01\t12:00", '2020-05-01  12:00', 'n.d.', 'nd', 'undated', '2020–2021', '2020-21',
    '2020/21', 'Winter 2020–21', '1 May 2020 – 3 May 2020',
];
$modifiers = ['', ' + 1 day', ' +2 days', ' - 3 weeks', ' +1 month', ' next month', ' -1 year',
    ' 13:45', ' midnight', ' first day of', ' UTC', ' Europe/Berlin', ' + 2 hours ago', ' foo'];

$inputs = [];
foreach ($bases as $b) {
    foreach ($modifiers as $m) {
        $inputs[] = $b . $m;
    }
}
$inputs = array_values(array_unique(array_filter($inputs, fn($s) => $s !== "")));
foreach (NOWS as $now) {
    foreach ($inputs as $s) {
        $r = @strtotime($s, $now);
        echo json_encode(['in' => $s, 'now' => $now, 'out' => $r === false ? null : $r],
            JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES), "\n";
    }
}
