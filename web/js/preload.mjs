// preload.mjs -- the page's first script (async, in <head>): asks at once
// for every module the opened page's view needs (views.mjs), while the
// parser still waits on Chart.js, so main.mjs finds them compiled.
import { matchRoute } from './router.mjs';
import { preloadView } from './views.mjs';

preloadView(matchRoute(location.pathname, location.search).name);
