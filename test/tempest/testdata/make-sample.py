"""Writes sample.subunit with python-subunit's own v2 encoder, for
subunit_test.go: every status, tags, attachments split over packets, a
failed setUpClass, a test that never finished, and bytes outside packets.

    /usr/bin/python3 make-sample.py > sample.subunit
"""
import datetime
import sys

import subunit

out = sys.stdout.buffer
w = subunit.StreamResultToBytes(out)
t0 = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
M = 'pkg.test_a.TestA.'
w.status(test_id=M + 'test_ok[id-1,smoke]', test_status='inprogress', timestamp=t0)
w.status(test_id=M + 'test_ok[id-1,smoke]', test_status='success',
         test_tags={'worker-0'}, timestamp=t0, route_code='0')
w.status(test_id=M + 'test_skip[id-2]', test_status='inprogress')
w.status(test_id=M + 'test_skip[id-2]', file_name='reason',
         file_bytes=b'not enabled', mime_type='text/plain;charset=utf8', eof=True)
w.status(test_id=M + 'test_skip[id-2]', test_status='skip')
w.status(test_id=M + 'test_fail[id-3]', test_status='inprogress')
w.status(test_id=M + 'test_fail[id-3]', file_name='traceback',
         file_bytes=b'Traceback (most recent call last):\n  File "x.py"\n',
         mime_type='text/x-traceback;charset=utf8')
out.write(b'stray worker output\n')
w.status(test_id=M + 'test_fail[id-3]', file_name='traceback',
         file_bytes=b'AssertionError: 404 != 200\n', eof=True)
w.status(test_id=M + 'test_fail[id-3]', test_status='fail')
w.status(test_id=M + 'test_xfail[id-4]', test_status='xfail')
w.status(test_id=M + 'test_uxsuccess[id-5]', test_status='uxsuccess')
w.status(test_id=M + 'test_died[id-6]', test_status='inprogress')
w.status(test_id='setUpClass (pkg.test_b.TestB)', file_name='traceback',
         file_bytes=b'Traceback\nkeystoneauth1.exceptions.Unauthorized: 401\n', eof=True)
w.status(test_id='setUpClass (pkg.test_b.TestB)', test_status='fail')
w.status(test_id='setUpClass (pkg.test_c.TestC)', file_name='reason',
         file_bytes=b'Neutron is not enabled', eof=True)
w.status(test_id='setUpClass (pkg.test_c.TestC)', test_status='skip')
w.status(test_id='setUpClass (pkg.test_d.TestD)', test_status='fail')
w.status(test_id='pkg.test_e.TestE.test_big', file_name='stdout',
         file_bytes=b'x' * 20000, eof=True)
w.status(test_id='pkg.test_e.TestE.test_big', test_status='success')
