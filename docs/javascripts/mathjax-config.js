// MathJax 3 for pymdownx.arithmatex (generic mode): typeset only what arithmatex marked.
// Loaded before docs/javascripts/mathjax/tex-svg.js, which ships with the site (no CDN).
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex"
  }
};
