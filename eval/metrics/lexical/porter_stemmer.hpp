#pragma once
// The Porter stemmer (Porter 1980, "An algorithm for suffix stripping") in the mode NLTK's
// PorterStemmer uses by default, NLTK_EXTENSIONS: METEOR's stem stage must produce NLTK's stems.
// No Debian package has this variant: libstemmer ships Snowball's Porter2 ("english"), a different
// algorithm, and its "porter" module is the original 1980 algorithm without NLTK's departures.
// NLTK's departures from the paper: a table of irregular forms (skies -> sky, dying -> die, ...),
// words of one or two characters left alone, "ies"/"ied" of four-letter words -> "ie", step 1c's
// y -> i only after a consonant that is not the first letter, Martin Porter's later bli -> ble and
// logi -> log rules, alli -> al applied before step 2's table, fulli -> ful, and a two-letter
// vowel-consonant word counting as ending in CVC.
#include <string>
#include <string_view>

namespace invar::metrics {

// The stem of a word, on code points (lengths and positions count characters, as Python's str
// does), after Python's str.lower().
std::string porter_stem(std::string_view word);

}  // namespace invar::metrics
