(function(){'use strict';
var D=JSON.parse(document.getElementById('cmt-data').textContent);
(function(){var u=function(x){return x/1e6;};D.gpus.forEach(function(g){g.merged=g.merged||[];g.series.concat(g.merged).forEach(function(s){s.peak_t=u(s.peak_t);for(var i=0;i<s.pts.length;i+=4)s.pts[i]=u(s.pts[i]);});g.ooms.forEach(function(o){o.t=u(o.t);});});
 D.markers.forEach(function(m){m.t=u(m.t);if(m.t_end!==undefined)m.t_end=u(m.t_end);});D.ooms.forEach(function(o){o.t=u(o.t);});D.host_ooms.forEach(function(m){m.t=u(m.t);});D.peaks.forEach(function(p){p.t=u(p.t);});})();
var NS='http://www.w3.org/2000/svg';
var COL=['#2563eb','#16a34a','#d97706','#9333ea','#0891b2','#db2777','#65a30d','#7c3aed','#0d9488','#ea580c'];
function el(t,a,p){var e=document.createElement(t);if(a)for(var k in a){if(k==='text')e.textContent=a[k];else e.setAttribute(k,a[k]);}if(p)p.appendChild(e);return e;}
function sv(t,a,p){var e=document.createElementNS(NS,t);if(a)for(var k in a){if(k==='text')e.textContent=a[k];else e.setAttribute(k,a[k]);}if(p)p.appendChild(e);return e;}
function hs(b){var u=['B','KiB','MiB','GiB','TiB','PiB'],i=0,v=b;if(v<1024)return v+' B';while(v>=1024&&i<5){v/=1024;i++;}return (v<10?v.toFixed(2):v<100?v.toFixed(1):v.toFixed(0))+' '+u[i];}
function nice(r){if(!(r>0))return 1;var m=Math.pow(10,Math.floor(Math.log10(r))),n=r/m;return (n<1.5?1:n<2.25?2:n<3.5?2.5:n<7.5?5:10)*m;}
function ts(s){return s===0?'0':s<1?+(s*1000).toFixed(3)+' ms':s<120?+s.toFixed(3)+' s':+(s/60).toFixed(2)+' min';}
function pl(p){var r=D.processes[p];return (r.rank>=0?'rank '+r.rank+' ':'')+'pid '+r.pid;}
function devl(dev,uuid){return dev<0?'host':'device '+dev+(uuid?' '+uuid:'');}
function ordl(g){return g.ordinals&&g.ordinals.length?'device '+g.ordinals.join(', ')+' \u00b7 ':'';}
var MW=null;function textw(s,fs){if(!MW){MW=sv('svg',{width:0,height:0,style:'position:absolute;visibility:hidden'},document.body);}
 var t=sv('text',{'font-size':fs,text:s},MW),w=t.getComputedTextLength?t.getComputedTextLength():0;MW.removeChild(t);return w>0?w:s.length*fs*0.62;}
function frames(i){return i===null||i===undefined||i<0?[]:(D.stacks[i]||[]);}
function stackDetails(i,p){var f=frames(i),d=el('details',null,p);var s=el('summary',{text:f.length?f[Math.min(f.length-1,userFrame(i))]:'(no stack recorded)'},d);if(!f.length){s.className='muted';return d;}var o=el('ol',null,d);f.forEach(function(x){el('li',{text:x},o);});return d;}
function userFrame(i){var u=D.stacks_user&&D.stacks_user[i];return u>0?u:0;}
function briefFrames(i){var f=frames(i),b=D.stacks_brief&&D.stacks_brief[i];return (b||[]).map(function(k){return f[k];});}
var root=document.getElementById('cmt-root');
var S=D.summary,cards=el('div',{'class':'cards'},root);
function card(k,v,bad){var c=el('div',{'class':'card'+(bad?' bad':'')},cards);el('div',{'class':'v',text:v},c);el('div',{'class':'k',text:k},c);}
card('leaked',hs(S.leaked_bytes),S.leaked_bytes>0);card('leak sites',String(S.leak_sites),S.leak_sites>0);
card('OOM errors',String(S.ooms),S.ooms>0);card('processes',String(S.processes));card('GPUs',String(D.gpus.length));
card('anomalies',String(S.anomalies),S.anomalies>0);
if(S.cached_bytes>0)card('held by caching allocators',hs(S.cached_bytes));if(D.suppressions.length)card('suppressed',hs(S.suppressed_bytes));
if(D.notes.length){var nu=el('ul',{id:'notes','class':'notes'},root);D.notes.forEach(function(t){el('li',{text:t},nu);});}
if(S.start_unix_ms){var st=new Date(S.start_unix_ms);document.getElementById('cmt-start').textContent='started '+st.toISOString().replace('T',' ').replace(/\.\d+Z$/,' UTC');}
var tmax=0;D.gpus.forEach(function(g){g.series.concat(g.merged).forEach(function(s){var n=s.pts.length;if(n)tmax=Math.max(tmax,s.pts[n-4]);});g.ooms.forEach(function(o){tmax=Math.max(tmax,o.t);});});
D.markers.forEach(function(m){tmax=Math.max(tmax,m.t,m.t_end||0);});if(tmax<=0)tmax=1e-3;var XS=nice(tmax/8);tmax=Math.ceil(tmax*1.0001/XS)*XS;
var gs=el('section',null,root);el('h2',{text:'Live device memory over time'},gs);
if(!D.gpus.length)el('p',{'class':'muted',text:'No device memory recorded.'},gs);
D.gpus.forEach(function(g,gi){chart(gs,g,gi);});
function chart(sec,g,gi){
 var h=el('h3',null,sec);h.textContent=ordl(g)+g.uuid+(g.name?'  \u2014  '+g.name:'')+(g.pci?'  ('+g.pci+')':'');
 var lg=el('div',{'class':'legend'},sec);
 g.series.forEach(function(s,i){var sp=el('span',null,lg);el('i',{style:'background:'+COL[i%COL.length]},sp);sp.appendChild(document.createTextNode(pl(s.proc)+' (device '+s.dev+'), peak '+hs(s.peak)));});
 /* several processes: the GPU's line is their total at each moment (per host: hosts add up) */
 var MG=g.merged;if(MG.length){var sm=el('span',null,lg);el('i',{style:'background:#111827'},sm);sm.appendChild(document.createTextNode('all processes'+(MG.length>1?' (per host)':'')));}
 var sp0=el('span',null,lg);sp0.appendChild(document.createTextNode('GPU peak'+(MG.length?' (all processes at one moment'+(MG.length>1?'; hosts add up':'')+')':'')+' '+hs(g.peak)+(g.total?' of '+hs(g.total):'')+', leaked '+hs(g.leaked)));
 var box=el('div',{'class':'chart'},sec),W=Math.max(600,(box.clientWidth||1200)),H=230,L=74,R=16,T=22,B=28;
 var mine={};g.series.forEach(function(s){mine[s.proc]=1;});var marks=D.markers.filter(function(m){return mine[m.proc];});
 /* marker labels never overlap: each goes to the first of LANES rows above the plot where it
  * clears the labels already there (measured widths); one that fits none is left to its tooltip */
 var LANES=3,GAP=6,lanes=[],placed=[],hidden=0,nl=1;
 marks.map(function(m,i){return {m:m,i:i,x:L+(W-L-R)*m.t/tmax};}).sort(function(a,b){return a.x-b.x||a.i-b.i;}).forEach(function(o){
  var txt=o.m.label.length>24?o.m.label.slice(0,23)+'\u2026':o.m.label;if(!txt)return;var w=textw(txt,10),nr=o.x+3+w>W-R,x0=nr?o.x-3-w:o.x+3,x1=x0+w;
  for(var k=0;k<LANES;k++){if(lanes[k]===undefined||x0>=lanes[k]+GAP){lanes[k]=x1;placed.push({m:o.m,txt:txt,lane:k,x0:x0,x1:x1,nr:nr,x:o.x});nl=Math.max(nl,k+1);return;}}
  hidden++;});
 T=22+12*(nl-1);H+=12*(nl-1);
 var ymax=1;g.series.concat(MG).forEach(function(s){ymax=Math.max(ymax,s.peak);});g.ooms.forEach(function(o){ymax=Math.max(ymax,o.live);});
 var un=Math.pow(1024,Math.max(0,Math.floor(Math.log(ymax)/Math.log(1024)))),ys=nice(ymax*1.08/un/4)*un;ymax=Math.ceil(ymax*1.08/ys)*ys;var xs=XS;
 var svg=sv('svg',{viewBox:'0 0 '+W+' '+H,height:H,'class':'gpu-chart','data-gpu':g.uuid},box);
 function X(t){return L+(W-L-R)*t/tmax;}function Y(v){return T+(H-T-B)*(1-v/ymax);}
 for(var v=0;v<=ymax+ys/2;v+=ys){var y=Y(v);sv('line',{x1:L,x2:W-R,y1:y,y2:y,stroke:'#e5e7eb'},svg);sv('text',{x:L-6,y:y+4,'text-anchor':'end','font-size':11,fill:'#6b7280',text:hs(Math.round(v))},svg);}
 for(var t=0;t<=tmax*1.0001;t+=xs){var x=X(t);sv('line',{x1:x,x2:x,y1:H-B,y2:H-B+4,stroke:'#9ca3af'},svg);sv('text',{x:x,y:H-B+16,'text-anchor':'middle','font-size':11,fill:'#6b7280',text:ts(t)},svg);}
 sv('line',{x1:L,x2:W-R,y1:H-B,y2:H-B,stroke:'#9ca3af'},svg);
 marks.forEach(function(m){var x=X(m.t);if(m.t_end!==undefined){var xe=X(m.t_end);sv('rect',{x:x,y:T,width:Math.max(0.5,xe-x),height:H-B-T,fill:'#9ca3af','fill-opacity':0.07,'class':'range'},svg);}
  var ln=sv('line',{x1:x,x2:x,y1:T,y2:H-B,stroke:'#9ca3af','stroke-dasharray':'3,3','class':'marker'},svg);sv('title',{text:(m.label||'(no label)')+' ('+(m.kind||'mark')+', '+pl(m.proc)+', '+ts(m.t)+(m.t_end!==undefined?' to '+ts(m.t_end):'')+')'},ln);});
 placed.forEach(function(p){var tt=sv('text',{x:p.nr?p.x1:p.x0,y:T-6-12*p.lane,'text-anchor':p.nr?'end':'start','font-size':10,fill:'#6b7280','class':'marker-label','data-x0':p.x0.toFixed(1),'data-x1':p.x1.toFixed(1),'data-lane':p.lane,text:p.txt},svg);
  sv('title',{text:p.m.label+' ('+pl(p.m.proc)+', '+ts(p.m.t)+')'},tt);});
 if(hidden)sv('text',{x:W-R,y:H-4,'text-anchor':'end','font-size':10,fill:'#6b7280','class':'marker-hidden',text:hidden+' marker label'+(hidden>1?'s':'')+' not shown (no room): hover the dashed lines'},svg);
 if(g.total&&g.total<ymax){var yt=Y(g.total);sv('line',{x1:L,x2:W-R,y1:yt,y2:yt,stroke:'#dc2626','stroke-dasharray':'6,3','stroke-width':1},svg);sv('text',{x:W-R,y:yt-4,'text-anchor':'end','font-size':10,fill:'#dc2626',text:'capacity '+hs(g.total)},svg);}
 g.series.forEach(function(s,i){var p=s.pts,d='',c=COL[i%COL.length];if(!p.length)return;d='M'+X(p[0]).toFixed(1)+' '+Y(p[1]).toFixed(1);
  for(var j=4;j<p.length;j+=4){d+='H'+X(p[j]).toFixed(1)+'V'+Y(p[j+1]).toFixed(1);}
  var area=d+'V'+Y(0).toFixed(1)+'H'+X(p[0]).toFixed(1)+'Z';sv('path',{d:area,fill:c,'fill-opacity':0.08,stroke:'none'},svg);
  sv('path',{d:d,fill:'none',stroke:c,'stroke-width':MG.length?1.2:1.6,'class':'series'},svg);
  var px=X(s.peak_t),py=Y(s.peak);sv('circle',{cx:px,cy:py,r:MG.length?3:4.5,fill:c,stroke:'#fff','stroke-width':1.5,'class':'peak'},svg);
  if(!MG.length)sv('text',{x:Math.min(px+7,W-R-90),y:Math.max(py-7,T+10),'font-size':11,'font-weight':600,fill:c,text:'peak '+hs(s.peak)},svg);});
 MG.forEach(function(m){var p=m.pts;if(!p.length)return;var d='M'+X(p[0]).toFixed(1)+' '+Y(p[1]).toFixed(1);
  for(var j=4;j<p.length;j+=4){d+='H'+X(p[j]).toFixed(1)+'V'+Y(p[j+1]).toFixed(1);}
  sv('path',{d:d,fill:'none',stroke:'#111827','stroke-width':2.2,'class':'gpu-total','data-host':m.host},svg);
  var who=m.peak_procs.map(function(q){return pl(q[0])+' '+hs(q[1]);}).join(', ');
  var px=X(m.peak_t),py=Y(m.peak),ck=sv('circle',{cx:px,cy:py,r:5,fill:'#111827',stroke:'#fff','stroke-width':1.5,'class':'gpu-peak'},svg);
  sv('title',{text:'GPU peak'+(MG.length>1?' on '+m.host:'')+' '+hs(m.peak)+' at '+ts(m.peak_t)+': '+(who||'nothing live')},ck);
  sv('text',{x:Math.min(px+7,W-R-240),y:Math.max(py-7,T+10),'font-size':11,'font-weight':600,fill:'#111827','class':'gpu-peak-label',
   text:(MG.length>1?m.host+' peak '+hs(m.peak):'GPU peak '+hs(g.peak))+(who?' ('+who+')':'')},svg);});
 g.ooms.forEach(function(o){var x=X(o.t),y=Y(o.live);sv('line',{x1:x,x2:x,y1:T,y2:H-B,stroke:'#dc2626','stroke-width':1.2},svg);
  sv('path',{d:'M'+x+' '+(y-9)+'L'+(x-6)+' '+(y+2)+'L'+(x+6)+' '+(y+2)+'Z',fill:'#dc2626','class':'oom'},svg);
  sv('text',{x:x+4,y:T+10,'font-size':10,'font-weight':600,fill:'#dc2626',text:'OOM'},svg);});
 var cur=sv('line',{x1:0,x2:0,y1:T,y2:H-B,stroke:'#111827','stroke-width':1,visibility:'hidden'},svg);
 var tip=el('div',{'class':'tip'},box);
 function at(s,t){var p=s.pts,lo=0,hi=p.length/4-1;if(hi<0||t<p[0])return -1;while(lo<hi){var m=(lo+hi+1)>>1;if(p[m*4]<=t)lo=m;else hi=m-1;}return lo;}
 svg.addEventListener('mousemove',function(ev){var r=svg.getBoundingClientRect(),sx=(ev.clientX-r.left)*W/r.width;if(sx<L||sx>W-R){tip.style.display='none';cur.setAttribute('visibility','hidden');return;}
  var t=(sx-L)/(W-L-R)*tmax;cur.setAttribute('x1',sx);cur.setAttribute('x2',sx);cur.setAttribute('visibility','visible');
  tip.textContent='';el('div',{text:'t = '+ts(t)},tip);var best=null;
  MG.forEach(function(m){var k=at(m,t);if(k>=0)el('div',{text:'all processes'+(MG.length>1?' on '+m.host:'')+': '+hs(m.pts[k*4+1])+' live'},tip);});
  g.series.forEach(function(s,i){var k=at(s,t);if(k<0)return;var p=s.pts,v=p[k*4+1];el('div',{text:pl(s.proc)+': '+hs(v)+' live'},tip).style.color=COL[i%COL.length];if(p[k*4+2]>=0&&(!best||v>best.v))best={v:v,st:p[k*4+2],sb:p[k*4+3]};});
  g.ooms.forEach(function(o){if(Math.abs(X(o.t)-sx)<6)el('div',{text:'OOM: '+(o.api||'allocation')+' of '+hs(o.requested)+' failed with '+hs(o.live)+' live'},tip).style.color='#fca5a5';});
  marks.forEach(function(m){if(Math.abs(X(m.t)-sx)<4)el('div',{text:'marker: '+m.label},tip);});
  if(best){el('div',{text:'top stack ('+hs(best.sb)+'):'},tip);briefFrames(best.st).forEach(function(f){el('div',{'class':'fr',text:'  '+f},tip);});}
  tip.style.display='block';var bw=box.clientWidth||W,px=(ev.clientX-r.left);tip.style.left=(px+16+320>bw?Math.max(0,px-336):px+16)+'px';tip.style.top=(ev.clientY-r.top+12)+'px';});
 svg.addEventListener('mouseleave',function(){tip.style.display='none';cur.setAttribute('visibility','hidden');});
}
var ib=el('section',null,root);el('h2',{text:'Imbalance across GPUs and ranks'},ib);el('p',{'class':'verdict',text:D.imbalance.verdict},ib);
var g2=el('div',{'class':'grid2'},ib);
var ORD={};D.gpus.forEach(function(g){ORD[g.uuid]=g;});
bars(g2,'Peak per GPU',D.imbalance.gpus.map(function(g){var o=ORD[g.uuid]?ordl(ORD[g.uuid]):'';return {l:o+g.uuid.slice(0,13)+'\u2026',v:g.peak,b:g.outlier,t:o+g.uuid+' '+g.name+' '+(g.pci||'')};}));
bars(g2,'Peak per rank / process',D.processes.map(function(p,i){return {l:pl(i)+(p.host?' @'+p.host:''),v:p.peak,t:p.command||''};}));
function bars(p,title,rows){var d=el('div',null,p);el('h3',{text:title},d);if(!rows.length){el('p',{'class':'muted',text:'none'},d);return;}
 var mx=1,mean=0;rows.forEach(function(r){mx=Math.max(mx,r.v);mean+=r.v;});mean/=rows.length;var W=620,rh=22,L=200,H=rows.length*rh+24;
 var s=sv('svg',{viewBox:'0 0 '+W+' '+H,height:H,'class':'bars'},d);
 rows.forEach(function(r,i){var y=i*rh+4,w=(W-L-90)*r.v/mx;sv('text',{x:L-6,y:y+14,'text-anchor':'end','font-size':11,fill:'#374151',text:r.l},s);
  var b=sv('rect',{x:L,y:y+3,width:Math.max(1,w),height:rh-8,rx:3,fill:r.b||(rows.length>1&&r.v>=D.imbalance.outlier_ratio*mean)?'#dc2626':'#60a5fa'},s);sv('title',{text:r.t+': '+hs(r.v)},b);
  sv('text',{x:L+w+6,y:y+14,'font-size':11,fill:'#374151',text:hs(r.v)},s);});
 var xm=L+(W-L-90)*mean/mx;sv('line',{x1:xm,x2:xm,y1:0,y2:H-20,stroke:'#111827','stroke-dasharray':'4,3'},s);sv('text',{x:xm,y:H-6,'text-anchor':'middle','font-size':10,fill:'#111827',text:'mean '+hs(Math.round(mean))},s);}
function topOf(n,all){return all>n?' (top '+n+' of '+all+')':'';}
var lt=el('section',null,root);el('h2',{text:'Leaks'+topOf(D.leaks.length,S.leak_sites)},lt);
if(!D.leaks.length)el('p',{'class':'muted',text:'No leaks.'},lt);else leakTable(lt,'leak-table',D.leaks,false);
function leakTable(p,id,rows,held){var tb=el('table',{id:id},p),hr=el('tr',null,el('thead',null,tb));
 ['bytes','allocations','kind','where'].concat(held?['allocator','held']:['live'],['stack']).forEach(function(h){el('th',{text:h},hr);});var bd=el('tbody',null,tb);
 rows.forEach(function(l){var r=el('tr',null,bd);el('td',{'class':'n',text:hs(l.bytes)},r);el('td',{'class':'n',text:String(l.allocs)},r);el('td',{text:l.kind},r);
  el('td',{'class':'mono',text:(l.dev>=0?'device '+l.dev+(l.uuid?' '+l.uuid:''):'host')+', '+(l.rank>=0?'rank '+l.rank+' ':'')+'pid '+l.pid},r);if(held)el('td',{text:l.allocator},r);el('td',{text:l.at},r);stackDetails(l.stack,el('td',null,r));});}
if(D.cached.length){var cs=el('section',{id:'cached'},root);el('h2',{text:'Held by caching allocators at exit: '+hs(S.cached_bytes)+topOf(D.cached.length,S.cached_sites)},cs);
 el('p',{'class':'muted',text:'Their cache, not leaks: in no leak figure, but in the peaks (device memory all the same).'},cs);leakTable(cs,'cached-table',D.cached,true);}
if(D.suppressions.length){var ss=el('section',{id:'suppressed'},root);el('h2',{text:'Suppressed: '+hs(S.suppressed_bytes)},ss);
 el('p',{'class':'muted',text:'Leaks matched by --suppressions: in no leak figure.'},ss);var tb6=el('table',{id:'suppressed-table'},ss),hr6=el('tr',null,el('thead',null,tb6));
 ['rule','leaks','bytes'].forEach(function(h){el('th',{text:h},hr6);});var bd6=el('tbody',null,tb6);
 D.suppressions.forEach(function(x){var r=el('tr',null,bd6);el('td',{'class':'mono',text:'leak:'+x.pattern},r);el('td',{'class':'n',text:String(x.leaks)},r);el('td',{'class':'n',text:hs(x.bytes)},r);});}
var pt=el('section',null,root);el('h2',{text:'Peaks: what was live at each device\u2019s peak'},pt);
if(!D.peaks.length)el('p',{'class':'muted',text:'No device memory recorded.'},pt);else{var tb2=el('table',{id:'peak-table'},pt),hr2=el('tr',null,el('thead',null,tb2));
 ['peak','device','when','live then','allocations','stack'].forEach(function(h){el('th',{text:h},hr2);});var bd2=el('tbody',null,tb2);
 D.peaks.forEach(function(p){p.top.forEach(function(s,i){var r=el('tr',null,bd2);el('td',{'class':'n',text:i?'':hs(p.bytes)},r);el('td',{'class':'mono',text:i?'':'device '+p.dev+' '+p.uuid+', '+(p.rank>=0?'rank '+p.rank+' ':'')+'pid '+p.pid},r);
  el('td',{'class':'n',text:i?'':ts(p.t)},r);el('td',{'class':'n',text:hs(s.bytes)},r);el('td',{'class':'n',text:String(s.allocs)},r);stackDetails(s.stack,el('td',null,r));});});}
var os=el('section',null,root);el('h2',{text:'Out-of-memory errors'},os);
if(!D.ooms.length)el('p',{'class':'muted',text:'No OOM errors.'},os);else{var tb4=el('table',{id:'oom-table'},os),hr4=el('tr',null,el('thead',null,tb4));
 ['requested','device','when','live then','API','failed call','what was live then'].forEach(function(h){el('th',{text:h},hr4);});var bd4=el('tbody',null,tb4);
 D.ooms.forEach(function(o){var r=el('tr',null,bd4);el('td',{'class':'n',text:hs(o.requested)},r);el('td',{'class':'mono',text:devl(o.dev,o.uuid)+', '+(o.rank>=0?'rank '+o.rank+' ':'')+'pid '+o.pid},r);
  el('td',{'class':'n',text:ts(o.t)},r);el('td',{'class':'n',text:hs(o.live)+(o.total?' of '+hs(o.total):'')},r);el('td',{'class':'mono',text:o.api||'?'},r);stackDetails(o.stack,el('td',null,r));
  var lt=el('td',{'class':'oom-live'},r);if(!o.live_then.length)el('span',{'class':'muted',text:'nothing'},lt);
  o.live_then.forEach(function(s){var d=el('div',null,lt);el('span',{'class':'n',text:hs(s.bytes)+' in '+s.allocs+' allocation'+(s.allocs===1?'':'s')+': '},d);stackDetails(s.stack,d);});});}
var grs=el('section',null,root);el('h2',{text:'Growth per marker: stacks whose live bytes grow at every marker of a label (each on its own scale)'},grs);
if(!D.growth.length)el('p',{'class':'muted',text:D.markers.length?'No stack grows across markers.':'No markers recorded.'},grs);else{var tb5=el('table',{id:'growth-table'},grs),hr5=el('tr',null,el('thead',null,tb5));
 ['per marker','marker','where','first \u2192 last','its live bytes at each marker','stack'].forEach(function(h){el('th',{text:h},hr5);});var bd5=el('tbody',null,tb5);
 D.growth.forEach(function(g){var r=el('tr',null,bd5);el('td',{'class':'n',text:'+'+hs(g.per_marker)},r);el('td',{text:'"'+g.label+'" '+g.kind+' \u00d7 '+g.markers},r);
  el('td',{'class':'mono',text:devl(g.dev,g.uuid)+', '+(g.rank>=0?'rank '+g.rank+' ':'')+'pid '+g.pid},r);el('td',{'class':'n',text:hs(g.first)+' \u2192 '+hs(g.last)},r);spark(g,el('td',null,r));stackDetails(g.stack,el('td',null,r));});}
if(D.tests){var tss=el('section',{id:'tests'},root);el('h2',{text:'Per test: GPU memory each test allocated, still live at its end (leaked), held by a caching allocator then (cached), and its peak'+(D.tests_total>D.tests.length?' (first '+D.tests.length+' of '+D.tests_total+')':'')},tss);
 var tb6=el('table',{id:'tests-table'},tss),hr6=el('tr',null,el('thead',null,tb6));['leaked','cached','peak','test','top leaking stack'].forEach(function(h){el('th',{text:h},hr6);});var bd6=el('tbody',null,tb6);
 D.tests.forEach(function(t){var r=el('tr',null,bd6);el('td',{'class':'n',text:hs(t.leaked)},r);el('td',{'class':'n',text:hs(t.cached)},r);el('td',{'class':'n',text:hs(t.peak)},r);
  el('td',{'class':'mono',text:t.name+' (pid '+t.pid+(t.end==='next'?', no end marker':t.end==='unfinished'?', unfinished':'')+')'},r);var sc=el('td',null,r);
  if(t.stack!==undefined){el('span',{'class':'n',text:hs(t.bytes)+' in '+t.allocs+' allocation'+(t.allocs===1?'':'s')+(t.allocator?' held by '+t.allocator:'')+': '},sc);stackDetails(t.stack,sc);}});}
function spark(g,p){var W=260,H=52,L=58,R=6,T=6,B=14,pt=g.pts,mx=1,mn=Infinity;for(var i=1;i<pt.length;i+=2){mx=Math.max(mx,pt[i]);mn=Math.min(mn,pt[i]);}if(!(mn<mx))mn=0;
 var n=Math.max(1,g.markers-1),s=sv('svg',{viewBox:'0 0 '+W+' '+H,width:W,height:H,'class':'growth-spark','data-ymin':mn,'data-ymax':mx},p);
 function X(k){return L+(W-L-R)*k/n;}function Y(v){return T+(H-T-B)*(1-(v-mn)/(mx-mn));}
 sv('text',{x:L-4,y:T+8,'text-anchor':'end','font-size':10,fill:'#6b7280',text:hs(mx)},s);sv('text',{x:L-4,y:H-B,'text-anchor':'end','font-size':10,fill:'#6b7280',text:hs(mn)},s);
 sv('line',{x1:L,x2:W-R,y1:H-B,y2:H-B,stroke:'#9ca3af'},s);sv('text',{x:L,y:H-2,'font-size':9,fill:'#6b7280',text:'marker 1'},s);sv('text',{x:W-R,y:H-2,'text-anchor':'end','font-size':9,fill:'#6b7280',text:String(g.markers)},s);
 var d='';for(var j=0;j<pt.length;j+=2)d+=(j?'L':'M')+X(pt[j]).toFixed(1)+' '+Y(pt[j+1]).toFixed(1);sv('path',{d:d,fill:'none',stroke:'#dc2626','stroke-width':1.6,'class':'growth-series'},s);
 sv('title',{text:'"'+g.label+'": '+hs(g.first)+' at its first marker, '+hs(g.last)+' at its last, +'+hs(g.per_marker)+' per marker'},s);}
var fs=el('section',null,root);el('h2',{text:'Icicle graphs (outermost frame on top; click to zoom, click the top bar to zoom out)'},fs);
icicle(fs,'Leaked bytes',D.flame_leaks,'ice-leaks');icicle(fs,'Bytes live at the peak',D.flame_peak,'ice-peak');
function icicle(p,title,folded,id){var d=el('div',{id:id},p);el('h3',{text:title},d);if(!folded.length){el('p',{'class':'muted',text:'nothing'},d);return;}
 var rt={n:'all',v:0,c:{}};folded.forEach(function(f){var n=rt;n.v+=f[1];f[0].split(';').forEach(function(x){var c=n.c[x];if(!c)c=n.c[x]={n:x,v:0,c:{}};c.v+=f[1];n=c;});});
 var box=el('div',null,d);function draw(z){box.textContent='';var W=Math.max(600,box.clientWidth||1200),rh=18,maxd=0;
  (function dep(n,k){maxd=Math.max(maxd,k);for(var c in n.c)dep(n.c[c],k+1);})(z,0);
  var svg=sv('svg',{viewBox:'0 0 '+W+' '+((maxd+1)*rh+2),height:(maxd+1)*rh+2,'class':'ice'},box);
  (function put(n,x,w,k){if(w<0.5)return;var hu=0;for(var i=0;i<n.n.length;i++)hu=(hu*31+n.n.charCodeAt(i))>>>0;
   var g=sv('g',null,svg),r=sv('rect',{x:x,y:k*rh,width:w,height:rh-1,fill:k?'hsl('+(10+hu%40)+','+(70+hu%20)+'%,'+(58+hu%14)+'%)':'#cbd5e1'},g);
   sv('title',{text:n.n+'  '+hs(n.v)+' ('+(100*n.v/z.v).toFixed(1)+'%)'},r);
   if(w>36){var lab=n.n+' '+hs(n.v),mx=Math.floor((w-6)/6.4);sv('text',{x:x+3,y:k*rh+13,text:lab.length>mx?lab.slice(0,Math.max(0,mx-1))+'\u2026':lab},g);}
   r.addEventListener('click',function(){draw(n===z&&z.parent?z.parent:n);});
   var cx=x,ks=Object.keys(n.c).sort(function(a,b){return n.c[b].v-n.c[a].v;});ks.forEach(function(c){n.c[c].parent=n;var cw=w*n.c[c].v/n.v;put(n.c[c],cx,cw,k+1);cx+=cw;});})(z,0,W,0);}
 (function par(n){for(var c in n.c){n.c[c].parent=n;par(n.c[c]);}})(rt);draw(rt);}
var ps=el('section',null,root);el('h2',{text:'Processes'},ps);var tb3=el('table',null,ps),h3=el('tr',null,el('thead',null,tb3));
['process','host','exit','peak','leaked','command','dump'].forEach(function(h){el('th',{text:h},h3);});var bd3=el('tbody',null,tb3);
D.processes.forEach(function(p,i){var r=el('tr',null,bd3);el('td',{text:pl(i)},r);el('td',{text:p.host},r);el('td',{text:p.exit},r);el('td',{'class':'n',text:hs(p.peak)},r);el('td',{'class':'n',text:hs(p.leaked)},r);el('td',{'class':'mono',text:p.command||''},r);el('td',{'class':'mono',text:p.dump},r);});
var ak=Object.keys(D.anomalies);if(ak.length){var as=el('section',null,root);el('h2',{text:'Anomalies'},as);var ul=el('ul',null,as);ak.forEach(function(k){el('li',{text:k+': '+D.anomalies[k]},ul);});}
document.body.setAttribute('data-rendered','ok');el('div',{id:'cmt-render-ok',hidden:'hidden'},document.body);
})();
