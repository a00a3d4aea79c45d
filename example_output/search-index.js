/* bough search index for file:// (see bough_site/search/offline.py) */
window.BOUGH_SEARCH_INDEX = {"parts":["81beaccdc66d1053be115ab43a4c602d","106a2a691bbe6c67398735647363f38f","7541520c906ccd461ce0a38846b551fe","bee45c33d070016a82bc157a7f14754d"],"v":2};
