# A course site made with Sphinx, with Gradwalk widgets in its lessons (docs/sites.md). The
# widget's files go into _static/gradwalk/, which Sphinx copies into the built site:
#   python build.py publish examples/sites/sphinx/_static/gradwalk --base /docs/_static/gradwalk/
project = "Backprop by hand"
html_theme = "alabaster"
html_static_path = ["_static"]
# Every page loads it; a page without a <grad-walk> starts nothing.
html_js_files = [("gradwalk/gradwalk.js", {"type": "module"})]
html_css_files = ["lessons.css"]
exclude_patterns = ["_build", "_static"]
