"""A page's check of itself in a browser, shared by report.html and compare.html: once loaded it
writes ``<body data-render-check="figures=N images=M broken=K width=W">`` — figures drawn with
no size and images that did not decode are broken; W is the page's width in pixels (wider than
the window: a reader scrolls sideways) — so a headless browser can tell a page that renders from
one that does not (tests/test_report_browser.py)."""

SELF_CHECK = """<script>window.addEventListener('load',function(){
var f=document.querySelectorAll('.fig svg'),im=document.querySelectorAll('img'),bad=0,i,r;
for(i=0;i<f.length;i++){r=f[i].getBoundingClientRect();if(!(r.width>0&&r.height>0))bad++;}
for(i=0;i<im.length;i++){if(!(im[i].complete&&im[i].naturalWidth>0))bad++;}
document.body.setAttribute('data-render-check','figures='+f.length+' images='+im.length+' broken='+bad+
' width='+document.documentElement.scrollWidth);});</script>"""
