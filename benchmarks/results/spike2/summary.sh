#!/bin/sh
# The paired rows of RESULTS "spike-start bins off a unit's grid": sh summary.sh (from here).
# Files: TABLE_VARIANT[_b].md; off = main, lat = the grid guard with every spike's count
# (`grid`), st = the adopted rule (`start`), h4 / c3 / s20 / on3 = the screened variants;
# _b = seeds 8-15. d/w/n/y = DoctorContacts / weather / nassCDS / yrbss (API), then epsilon.
P=../dcq10/paired.py
cat16() { cat "$1.md" "$1_b.md" > "/tmp/$1_16.md"; echo "/tmp/$1_16.md"; }
for v in on3 h4 c3 s20 lat; do python $P d1_off.md d1_$v.md; done
for v in s20 lat; do python $P w5_off.md w5_$v.md; done
for v in lat st; do python $P d0.5_off.md d0.5_$v.md; python $P d5_off.md d5_$v.md
  python $P n5_off.md n5_$v.md; done
python $P "$(cat16 d5_off)" "$(cat16 d5_st)"
python $P n0.5_off.md n0.5_lat.md; python $P n1_off.md n1_lat.md
python $P "$(cat16 d1_off)" "$(cat16 d1_lat)"; python $P /tmp/d1_off_16.md d1_st.md
for e in 0.5 1 5; do python $P "$(cat16 w${e}_off)" "$(cat16 w${e}_lat)"
  python $P /tmp/w${e}_off_16.md w${e}_st.md; done
python ../dcq10/paired_api.py y1_off.md y1_lat.md; python ../dcq10/paired_api.py y1_off.md y1_st.md
