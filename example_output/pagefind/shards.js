/* bough: the Pagefind bundles, one per project (bough_site/search.py) */
export default [
  "pagefind/almanac-2221600c/",
  "pagefind/dotfiles-7afa1314/",
  "pagefind/notes-api-e8fe6469/",
  "pagefind/tidepool-4541f4cb/"
];
